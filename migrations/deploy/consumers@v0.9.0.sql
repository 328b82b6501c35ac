-- Deploy queen:consumers to pg
BEGIN;

-- Cursor and lease of one consumer group on one partition (the queue-mode group is
-- named __QUEUE_MODE__). Sequence numbers are those of queen.messages.seq.
-- The foreign key is to the queue, deliberately not to the partition: a check against
-- the partition row takes a share lock on it, which waits for any push holding that row
-- (pops and acks would queue behind pushes, and a settle holding the row could deadlock
-- with them). Partitions are only deleted with their queue, which cascades here.
CREATE TABLE queen.consumers (
  partition_id     uuid        NOT NULL,               -- a partition of queue_id
  consumer_group   queen.name_text NOT NULL,
  queue_id         uuid        NOT NULL REFERENCES queen.queues (id) ON DELETE CASCADE,  -- the partition's queue
  cursor_seq       bigint      NOT NULL DEFAULT 0,     -- last consumed seq; 0 = nothing consumed
  pending          boolean     NOT NULL DEFAULT true,  -- false only when no message follows cursor_seq (settle_drained)
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
COMMENT ON COLUMN queen.consumers.pending IS
  'Invariant: a row with a committed message after cursor_seq is pending. Rows are born pending, store_messages sets the rows of the partitions it writes pending (under the partition lock), and only queen.settle_drained clears it. A pending row may have nothing to deliver (the next pop or ack settles it).';

-- extend_lease and run_transaction (requiredLeases) find leases by id.
CREATE INDEX consumers_lease_id_idx ON queen.consumers (lease_id) WHERE lease_id IS NOT NULL;

-- Pop's work list: the pending rows of one (queue, group), least recently claimed first,
-- so a pop reads a bounded prefix however many partitions the queue has. Also answers
-- "has this group a cursor row on this queue" (first pops).
CREATE INDEX consumers_queue_group_pending_idx
  ON queen.consumers (queue_id, consumer_group, pending, last_claimed_at NULLS FIRST, partition_id);

-- The consumer groups registered on a queue by a wildcard or filter pop: each has a
-- cursor row on every partition of the queue (registration creates them for the
-- partitions that exist, add_partition_cursors for partitions created later), so pop
-- never has to look for partitions without one.
CREATE TABLE queen.consumer_groups (
  queue_id       uuid        NOT NULL REFERENCES queen.queues (id) ON DELETE CASCADE,
  consumer_group queen.name_text NOT NULL,
  created_at     timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT consumer_groups_pkey PRIMARY KEY (queue_id, consumer_group)
);
COMMENT ON TABLE queen.consumer_groups IS
  'Groups that consume a queue through wildcard or filter pops: each has a queen.consumers row on every partition of the queue.';

-- Cursor rows (at 0, pending) of the registered groups on partitions just created. The
-- caller runs it in a statement after the one that inserted the partitions: that insert
-- took the FK share lock on the queue row, which waits for (and then blocks) a
-- registration holding the queue row FOR UPDATE, so this statement's snapshot sees
-- every group registered before the partitions became visible.
CREATE FUNCTION queen.add_partition_cursors(p_partition_ids uuid[]) RETURNS void
LANGUAGE sql AS $$
  INSERT INTO queen.consumers (partition_id, consumer_group, queue_id)
  SELECT p.id, g.consumer_group, p.queue_id
    FROM queen.partitions p
    JOIN queen.consumer_groups g ON g.queue_id = p.queue_id
   WHERE p.id = ANY (p_partition_ids)
   ORDER BY p.id, g.consumer_group
  ON CONFLICT ON CONSTRAINT consumers_pkey DO NOTHING
$$;
COMMENT ON FUNCTION queen.add_partition_cursors(uuid[]) IS
  'Creates the cursor rows (cursor 0, pending) of the registered consumer groups (queen.consumer_groups) on newly created partitions.';

-- Clears pending on the rows of group p_group on these partitions that have no message
-- after their cursor. Never waits: a cursor row busy elsewhere, or a partition row a push
-- holds (FOR UPDATE, until it commits its messages), is skipped and stays pending. The
-- partition row is locked in share mode first and the check runs in the next statement,
-- with a snapshot taken after the lock: every push of these partitions has committed and
-- is seen, and a later push waits for this transaction and then sets pending again.
CREATE FUNCTION queen.settle_drained(p_group text, p_partition_ids uuid[]) RETURNS int
LANGUAGE plpgsql AS $$
DECLARE
  v_locked uuid[];
  v_settled int;
BEGIN
  IF coalesce(cardinality(p_partition_ids), 0) = 0 THEN
    RETURN 0;
  END IF;
  SELECT array_agg(x.partition_id) INTO v_locked
    FROM (SELECT c.partition_id
            FROM queen.consumers c
            JOIN queen.partitions p ON p.id = c.partition_id
           WHERE c.partition_id = ANY (p_partition_ids) AND c.consumer_group = p_group AND c.pending
           ORDER BY c.partition_id
             FOR UPDATE OF c SKIP LOCKED
             FOR SHARE OF p SKIP LOCKED) x;
  IF v_locked IS NULL THEN
    RETURN 0;
  END IF;
  UPDATE queen.consumers c
     SET pending = false
   WHERE c.partition_id = ANY (v_locked) AND c.consumer_group = p_group
     AND NOT EXISTS (SELECT 1 FROM queen.messages m WHERE m.partition_id = c.partition_id AND m.seq > c.cursor_seq);
  GET DIAGNOSTICS v_settled = ROW_COUNT;
  RETURN v_settled;
END;
$$;
COMMENT ON FUNCTION queen.settle_drained(text, uuid[]) IS
  'Clears consumers.pending of group p_group on the given partitions where no message follows the cursor; skips (leaves pending) rows or partitions locked by others, so it never waits. Returns how many it cleared.';

COMMIT;
