CREATE OR REPLACE FUNCTION queen.stream_state_get(p_request jsonb, p_tenant text)
 RETURNS jsonb
 LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path TO 'pg_catalog', 'queen', 'queen_internal', 'pg_temp' SET jit TO 'off' AS $function$
DECLARE
  v_tenant text := queen_internal.tenant_arg(p_tenant);
  v_partition_id uuid := queen_internal.uuid_or_null(p_request ->> 'partition_id');
  v_keys text[];
  v_prefix text := nullif(p_request ->> 'key_prefix', '');
  v_ripe numeric := CASE WHEN jsonb_typeof(p_request -> 'ripe_at_or_before') = 'number'
                         THEN (p_request ->> 'ripe_at_or_before')::numeric END;
  q queen.stream_queries := queen_internal.stream_query_of(v_tenant, p_request ->> 'query_id');
  v_rows jsonb;
  v_count bigint;
BEGIN
  IF queen_internal.uuid_or_null(p_request ->> 'query_id') IS NULL THEN
    RETURN jsonb_build_object('success', false, 'error', 'query_id must be a UUID');
  ELSIF v_partition_id IS NULL THEN
    RETURN jsonb_build_object('success', false, 'error', 'partition_id must be a UUID');
  END IF;
  IF jsonb_typeof(p_request -> 'keys') = 'array' AND jsonb_array_length(p_request -> 'keys') > 0 THEN
    PERFORM queen_internal.check_stream_limit('max_read_keys', 'keys', jsonb_array_length(p_request -> 'keys'));
    SELECT array_agg(k) INTO v_keys FROM jsonb_array_elements_text(p_request -> 'keys') k;
  END IF;
  IF q.id IS NULL THEN
    RETURN jsonb_build_object('success', true, 'rows', '[]'::jsonb);  -- an unknown shard is empty
  END IF;

  SELECT count(*), coalesce(jsonb_agg(jsonb_build_object('key', r.key, 'value', r.value, 'updated_at', r.updated_at)
                                      ORDER BY r.key), '[]'::jsonb)
    INTO v_count, v_rows
    FROM (SELECT s.key, s.value, s.updated_at
            FROM queen.stream_state s
           WHERE s.query_id = q.id AND s.partition_id = v_partition_id
             AND (v_keys IS NULL OR s.key = ANY (v_keys))
             -- an exact prefix: a range of the C-collated key, no pattern characters
             AND (v_prefix IS NULL OR (s.key >= v_prefix AND left(s.key, length(v_prefix)) = v_prefix))
             AND (v_ripe IS NULL OR (jsonb_typeof(s.value -> 'windowEnd') = 'number'
                                     AND (s.value ->> 'windowEnd')::numeric <= v_ripe))
           ORDER BY s.key
           LIMIT queen_internal.stream_limit('max_read_keys') + 1) r;
  PERFORM queen_internal.check_stream_limit('max_read_keys', 'state rows read', v_count);
  RETURN jsonb_build_object('success', true, 'rows', v_rows);
END;
$function$;

COMMENT ON FUNCTION queen.stream_state_get(p_request jsonb, p_tenant text) IS 'POST /streams/v1/state/get for tenant p_tenant. p_request {query_id, partition_id, keys?, key_prefix?, ripe_at_or_before?}: the rows of the shard, by key, filtered (ANDed) by exact keys, an exact key prefix and value.windowEnd <= ripe_at_or_before (a JSON number). {success:true, rows:[{key, value, updated_at}]}; another tenant''s or an unknown query reads empty; success:false when an id is not a UUID. 22023 past QUEEN_STREAM_MAX_READ_KEYS (keys given or rows read).';
GRANT EXECUTE ON FUNCTION queen.stream_state_get(p_request jsonb, p_tenant text) TO queen_admin, queen_broker, queen_reader;
