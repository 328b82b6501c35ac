-- Deploy queen:dlq to pg
BEGIN;

-- Dead letters, one per (message, consumer group): the DLQ is per group. The row
-- copies what a reader needs (payload included) because retention may delete the
-- message itself later.
CREATE TABLE queen.dlq (
  message_id         uuid        NOT NULL,
  consumer_group     queen.name_text NOT NULL,
  partition_id       uuid        NOT NULL REFERENCES queen.partitions (id) ON DELETE CASCADE,
  seq                bigint      NOT NULL,
  transaction_id     text        NOT NULL,
  payload            jsonb,
  trace_id           uuid,
  producer_sub       text,
  is_encrypted       boolean     NOT NULL DEFAULT false,
  error_message      text        NOT NULL,
  retry_count        int         NOT NULL DEFAULT 0,
  message_created_at timestamptz NOT NULL,
  failed_at          timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT dlq_pkey PRIMARY KEY (message_id, consumer_group)
);
COMMENT ON TABLE queen.dlq IS
  'Dead-lettered messages per (message, consumer group) with the error, the retry count at the time and a copy of the payload.';

-- list_dlq filters by partition and pages by failure time; the FK cascade needs partition_id too.
CREATE INDEX dlq_partition_failed_at_idx ON queen.dlq (partition_id, failed_at);

COMMIT;
