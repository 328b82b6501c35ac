-- One parsed item of a schedule call, held in a PL/pgSQL array between the
-- insert and the answer (no temporary table: those churn the catalog per call).
CREATE TYPE queen.schedule_item AS (
  idx integer,
  queue_name text,
  partition_name text,
  transaction_id text,
  deliver_at timestamp with time zone,
  payload jsonb,
  trace_id uuid,
  is_encrypted boolean,
  namespace text,
  task text,
  occurrence bigint,
  new_message_id uuid,
  refused boolean
);
