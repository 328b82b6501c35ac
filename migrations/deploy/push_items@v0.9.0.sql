-- Deploy queen:push_items to pg
-- What a push item is: the JSON object push_messages, schedule_messages and the
-- store read. Its fields are parsed here and nowhere else.
BEGIN;

-- Namespace and task a push derives for a queue it creates: the parts of the name
-- before and after the first '.' (docs/procedures.md, push_messages).
CREATE FUNCTION queen.queue_namespace_of(p_queue text) RETURNS text
LANGUAGE sql IMMUTABLE STRICT AS $$ SELECT split_part(p_queue, '.', 1) $$;
COMMENT ON FUNCTION queen.queue_namespace_of(text) IS
  'Namespace derived from a queue name: the part before the first dot (the whole name without a dot).';

CREATE FUNCTION queen.queue_task_of(p_queue text) RETURNS text
LANGUAGE sql IMMUTABLE STRICT AS $$
  SELECT CASE WHEN strpos(p_queue, '.') > 0 THEN substr(p_queue, strpos(p_queue, '.') + 1) ELSE '' END
$$;
COMMENT ON FUNCTION queen.queue_task_of(text) IS
  'Task derived from a queue name: the part after the first dot ('''' without a dot).';

-- The partition a push item names: absent, null or '' = Default.
CREATE FUNCTION queen.push_item_partition(p_item jsonb) RETURNS text
LANGUAGE sql IMMUTABLE AS $$ SELECT coalesce(nullif(p_item ->> 'partition', ''), 'Default') $$;
COMMENT ON FUNCTION queen.push_item_partition(jsonb) IS
  'Partition name of a push item: its "partition", or Default when absent/null/empty.';

-- deliverAt of a push item: an ISO-8601 timestamp string, or epoch milliseconds
-- as a number or a string of digits. Null when the item has none.
CREATE FUNCTION queen.push_item_deliver_at(p_item jsonb, p_idx int DEFAULT NULL) RETURNS timestamptz
LANGUAGE plpgsql STABLE AS $$
DECLARE
  v_value jsonb := p_item -> 'deliverAt';
  v_text  text;
BEGIN
  IF v_value IS NULL OR jsonb_typeof(v_value) = 'null' THEN
    RETURN NULL;
  END IF;
  BEGIN
    IF jsonb_typeof(v_value) = 'number' THEN
      RETURN to_timestamp((v_value #>> '{}')::numeric / 1000);
    ELSIF jsonb_typeof(v_value) = 'string' THEN
      v_text := btrim(v_value #>> '{}');
      IF v_text ~ '^[0-9]+$' THEN
        RETURN to_timestamp(v_text::numeric / 1000);
      END IF;
      IF v_text <> '' THEN
        RETURN v_text::timestamptz;
      END IF;
    END IF;
  EXCEPTION WHEN invalid_datetime_format OR datetime_field_overflow OR invalid_parameter_value
                 OR numeric_value_out_of_range THEN
    NULL;  -- reported below with the item's index
  END;
  RAISE EXCEPTION 'push item %: deliverAt must be an ISO-8601 timestamp or epoch milliseconds (got %)',
    coalesce(p_idx::text, '?'), v_value USING ERRCODE = '22023';
END;
$$;
COMMENT ON FUNCTION queen.push_item_deliver_at(jsonb, int) IS
  'The deliverAt of a push item as timestamptz (ISO-8601 text, or epoch ms as number or digit string); null when absent. 22023 when unparsable (p_idx names the item in the message).';

-- Rejects a malformed push request as a whole (the broker validates first and
-- answers 400; this guards DBAs and other callers). Names the first bad item.
CREATE FUNCTION queen.check_push_items(p_items jsonb) RETURNS void
LANGUAGE plpgsql IMMUTABLE AS $$
DECLARE
  v_idx int;
  v_problem text;
BEGIN
  IF p_items IS NULL OR jsonb_typeof(p_items) <> 'array' THEN
    RAISE EXCEPTION 'items array is required' USING ERRCODE = '22023';
  END IF;
  SELECT x.ord - 1, x.problem INTO v_idx, v_problem
    FROM (SELECT ord, CASE
            WHEN jsonb_typeof(e) <> 'object' THEN 'must be an object'
            WHEN jsonb_typeof(e -> 'queue') IS DISTINCT FROM 'string' OR e ->> 'queue' = '' THEN 'queue must be a non-empty string'
            WHEN length(e ->> 'queue') > queen.name_max_chars() THEN 'queue ' || queen.name_problem(e ->> 'queue')
            WHEN coalesce(jsonb_typeof(e -> 'partition'), 'null') NOT IN ('null', 'string') THEN 'partition must be a string'
            WHEN length(e ->> 'partition') > queen.name_max_chars() THEN 'partition ' || queen.name_problem(e ->> 'partition')
            WHEN coalesce(jsonb_typeof(e -> 'transactionId'), 'null') NOT IN ('null', 'string') THEN 'transactionId must be a string'
            WHEN coalesce(jsonb_typeof(e -> 'traceId'), 'null') NOT IN ('null', 'string')
              OR (e ->> 'traceId' <> '' AND e ->> 'traceId' !~* '^\{?[0-9a-f]{8}-?([0-9a-f]{4}-?){3}[0-9a-f]{12}\}?$')
              THEN 'traceId must be a UUID'
            WHEN coalesce(jsonb_typeof(e -> 'namespace'), 'null') NOT IN ('null', 'string') THEN 'namespace must be a string'
            WHEN coalesce(jsonb_typeof(e -> 'task'), 'null') NOT IN ('null', 'string') THEN 'task must be a string'
            WHEN coalesce(jsonb_typeof(e -> 'encrypted'), 'null') NOT IN ('null', 'boolean') THEN 'encrypted must be a boolean'
            WHEN coalesce(jsonb_typeof(e -> 'keyHeld'), 'null') NOT IN ('null', 'boolean') THEN 'keyHeld must be a boolean'
          END AS problem
          FROM jsonb_array_elements(p_items) WITH ORDINALITY AS i(e, ord)) x
   WHERE x.problem IS NOT NULL
   ORDER BY x.ord
   LIMIT 1;
  IF v_problem IS NOT NULL THEN
    RAISE EXCEPTION 'push item %: %', v_idx, v_problem USING ERRCODE = '22023';
  END IF;
END;
$$;
COMMENT ON FUNCTION queen.check_push_items(jsonb) IS
  'Raises 22023 naming the first malformed push item (queue missing, a name longer than queen.name_max_chars(), wrong field types, traceId not a UUID).';

-- One result row of a push (push_messages, schedule_messages, store_messages):
-- idx = the item's 0-based position in the call.
CREATE TYPE queen.push_result AS (
  idx            int,
  status         text,   -- queued | duplicate | failed
  message_id     uuid,
  transaction_id text,
  partition_id   uuid,
  queue_name     text,
  partition_name text,
  error          text
);
COMMENT ON TYPE queen.push_result IS
  'One row per push item: idx (0-based position), status (queued, duplicate or failed), message_id, transaction_id, partition_id, queue_name, partition_name, error (failed only).';

COMMIT;
