-- Deploy queen:consumers to pg
BEGIN;

-- Cursor and lease of one consumer group on one partition (the queue-mode group is
-- named __QUEUE_MODE__). Sequence numbers are those of queen.messages.seq.
CREATE TABLE queen.consumers (
  partition_id     uuid        NOT NULL REFERENCES queen.partitions (id) ON DELETE CASCADE,
  consumer_group   queen.name_text NOT NULL,
  cursor_seq       bigint      NOT NULL DEFAULT 0,     -- last consumed seq; 0 = nothing consumed
  lease_id         uuid,                               -- null = no lease
  lease_expires_at timestamptz,
  lease_count      int         NOT NULL DEFAULT 0,     -- n: messages handed out under the lease
  lease_acked      int         NOT NULL DEFAULT 0,     -- k: messages of the lease acked so far
  lease_max_seq    bigint      NOT NULL DEFAULT 0,     -- highest seq handed out under the lease
  retry_count      int         NOT NULL DEFAULT 0,     -- r: failed batches since the last full ack
  failed_lease_id  uuid,                               -- last lease released by a failed ack
  available_at     timestamptz,                        -- retryDelay gate: no claim before this
  total_consumed   bigint      NOT NULL DEFAULT 0,
  last_consumed_at timestamptz,
  last_claimed_at  timestamptz,                        -- last pop that leased or auto-acked here
  created_at       timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT consumers_pkey PRIMARY KEY (partition_id, consumer_group)
);
COMMENT ON TABLE queen.consumers IS
  'Cursor (cursor_seq), lease (lease_id, lease_expires_at, n = lease_count, k = lease_acked, lease_max_seq), retry counter and retryDelay gate per (partition, consumer group). An expired lease is free for pop without any cleanup.';
COMMENT ON COLUMN queen.consumers.failed_lease_id IS
  'The lease a failed ack released; later failed acks of that lease are no-ops, so one failed batch costs one retry.';

-- extend_lease and run_transaction (requiredLeases) find leases by id.
CREATE INDEX consumers_lease_id_idx ON queen.consumers (lease_id) WHERE lease_id IS NOT NULL;

COMMIT;
