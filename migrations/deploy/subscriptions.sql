-- Deploy queen:subscriptions to pg
BEGIN;

-- Where a named consumer group starts on partitions it has not consumed from yet
-- (docs/procedures.md, pop_messages). Written by the group's first pop when its mode is new/timestamp.
-- Scope: a queue (partition_name = ''), one partition of a queue, or a namespace/task
-- filter (queue_id null; a null filter column means "not part of the filter").
CREATE TABLE queen.subscriptions (
  id               bigint      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  tenant           queen.tenant_text NOT NULL DEFAULT '',  -- scopes filter records (queue records are scoped by queue_id)
  consumer_group   queen.name_text NOT NULL,
  queue_id         uuid        REFERENCES queen.queues (id) ON DELETE CASCADE,
  partition_name   text        NOT NULL DEFAULT '',
  filter_namespace text,
  filter_task      text,
  mode             text        NOT NULL,
  start_at         timestamptz NOT NULL,
  created_at       timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT subscriptions_scope_key UNIQUE NULLS NOT DISTINCT
    (tenant, consumer_group, queue_id, partition_name, filter_namespace, filter_task),
  CONSTRAINT subscriptions_mode_check CHECK (mode IN ('new', 'timestamp')),
  CONSTRAINT subscriptions_scope_check CHECK (
    (queue_id IS NOT NULL AND filter_namespace IS NULL AND filter_task IS NULL)
    OR (queue_id IS NULL AND partition_name = '' AND (filter_namespace IS NOT NULL OR filter_task IS NOT NULL)))
);
COMMENT ON TABLE queen.subscriptions IS
  'First-join start points of named consumer groups: messages created at or after start_at are delivered on partitions the group has no cursor on yet. Scope = queue (partition_name ''''), one partition, or a namespace/task filter (queue_id null).';

COMMIT;
