CREATE OR REPLACE FUNCTION queen_internal.check_push_items(p_items jsonb)
 RETURNS void
 LANGUAGE plpgsql IMMUTABLE AS $function$
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
            WHEN length(e ->> 'queue') > queen_internal.name_max_chars() THEN 'queue ' || queen_internal.name_problem(e ->> 'queue')
            WHEN coalesce(jsonb_typeof(e -> 'partition'), 'null') NOT IN ('null', 'string') THEN 'partition must be a string'
            WHEN length(e ->> 'partition') > queen_internal.name_max_chars() THEN 'partition ' || queen_internal.name_problem(e ->> 'partition')
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

COMMENT ON FUNCTION queen_internal.check_push_items(p_items jsonb) IS 'Raises 22023 naming the first malformed push item (queue missing, a name longer than queen_internal.name_max_chars(), wrong field types, traceId not a UUID).';
