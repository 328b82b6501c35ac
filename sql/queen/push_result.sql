-- One result row of a push (push_messages, schedule_messages, store_messages):
-- idx = the item's 0-based position in the call.
CREATE TYPE queen.push_result AS (
  idx integer,
  status text,
  message_id uuid,
  transaction_id text,
  partition_id uuid,
  queue_name text,
  partition_name text,
  error text,
  seq bigint
);

COMMENT ON TYPE queen.push_result IS 'One row per push item: idx (0-based position), status (queued, duplicate or failed), message_id, transaction_id, partition_id, queue_name, partition_name, error (failed only), seq (the stored message''s position in its partition: queued by a store only).';
