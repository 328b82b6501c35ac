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

-- The one DLQ filter, shared by the listing (list_dlq) and the requeue and delete
-- routes (select_dead_letters): the entries of tenant p_tenant's queues matching
-- queue, consumer group, partition, failure-time bounds and message id (null = any).
-- SQL and STABLE, so the planner inlines it into the caller's query.
CREATE FUNCTION queen.dlq_matching(p_tenant text, p_queue text, p_group text, p_partition text,
                                   p_from timestamptz, p_to timestamptz, p_message_id uuid)
RETURNS TABLE (message_id uuid, consumer_group text, failed_at timestamptz, queue_name text, partition_name text)
LANGUAGE sql STABLE AS $$
  SELECT d.message_id, d.consumer_group::text, d.failed_at, q.name::text, p.name::text
    FROM queen.dlq d
    JOIN queen.partitions p ON p.id = d.partition_id
    JOIN queen.queues q ON q.id = p.queue_id
   WHERE q.tenant = queen.tenant_arg(p_tenant)
     AND (p_queue IS NULL OR q.name = p_queue)
     AND (p_group IS NULL OR d.consumer_group = p_group)
     AND (p_partition IS NULL OR p.name = p_partition)
     AND (p_from IS NULL OR d.failed_at >= p_from)
     AND (p_to IS NULL OR d.failed_at <= p_to)
     AND (p_message_id IS NULL OR d.message_id = p_message_id)
$$;
COMMENT ON FUNCTION queen.dlq_matching(text, text, text, text, timestamptz, timestamptz, uuid) IS
  'Internal to list_dlq and select_dead_letters: keys (with failure time, queue and partition name) of the DLQ entries of tenant p_tenant matching the filters (null = any).';

COMMIT;
