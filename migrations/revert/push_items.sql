-- Revert queen:push_items from pg (back to push_items@v0.9.0: the pre-release functions, owned by the reverting user)

BEGIN;

SET LOCAL check_function_bodies = off;

DROP FUNCTION
  queen_internal.queue_namespace_of(text),
  queen_internal.queue_task_of(text),
  queen_internal.push_item_partition(jsonb),
  queen_internal.push_item_deliver_at(jsonb,integer),
  queen_internal.check_push_items(jsonb);

CREATE OR REPLACE FUNCTION queen.queue_namespace_of(p_queue text)
 RETURNS text
 LANGUAGE sql
 IMMUTABLE STRICT
AS $function$ SELECT split_part(p_queue, '.', 1) $function$;
COMMENT ON FUNCTION queen.queue_namespace_of(text) IS
  'Namespace derived from a queue name: the part before the first dot (the whole name without a dot).';

CREATE OR REPLACE FUNCTION queen.queue_task_of(p_queue text)
 RETURNS text
 LANGUAGE sql
 IMMUTABLE STRICT
AS $function$
  SELECT CASE WHEN strpos(p_queue, '.') > 0 THEN substr(p_queue, strpos(p_queue, '.') + 1) ELSE '' END
$function$;
COMMENT ON FUNCTION queen.queue_task_of(text) IS
  'Task derived from a queue name: the part after the first dot ('''' without a dot).';

CREATE OR REPLACE FUNCTION queen.push_item_partition(p_item jsonb)
 RETURNS text
 LANGUAGE sql
 IMMUTABLE
AS $function$ SELECT coalesce(nullif(p_item ->> 'partition', ''), 'Default') $function$;
COMMENT ON FUNCTION queen.push_item_partition(jsonb) IS
  'Partition name of a push item: its "partition", or Default when absent/null/empty.';

CREATE OR REPLACE FUNCTION queen.push_item_deliver_at(p_item jsonb, p_idx integer DEFAULT NULL::integer)
 RETURNS timestamp with time zone
 LANGUAGE plpgsql
 STABLE
AS $function$
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
$function$;
COMMENT ON FUNCTION queen.push_item_deliver_at(jsonb,integer) IS
  'The deliverAt of a push item as timestamptz (ISO-8601 text, or epoch ms as number or digit string); null when absent. 22023 when unparsable (p_idx names the item in the message).';

CREATE OR REPLACE FUNCTION queen.check_push_items(p_items jsonb)
 RETURNS void
 LANGUAGE plpgsql
 IMMUTABLE
AS $function$
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
$function$;
COMMENT ON FUNCTION queen.check_push_items(jsonb) IS
  'Raises 22023 naming the first malformed push item (queue missing, a name longer than queen.name_max_chars(), wrong field types, traceId not a UUID).';

COMMIT;
