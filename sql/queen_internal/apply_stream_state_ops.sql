-- Applies the state operations of a cycle to one shard and keeps the tenant's
-- usage. Returns how many operations there were (a delete of a missing key
-- counts). Raises QS001 on an unknown type or a bad key, 22023 past a bound.
CREATE OR REPLACE FUNCTION queen_internal.apply_stream_state_ops(q queen.stream_queries, p_partition_id uuid, p_ops jsonb, p_now timestamp with time zone)
 RETURNS integer
 LANGUAGE plpgsql AS $function$
DECLARE
  v_bad text;
  v_count int := jsonb_array_length(p_ops);
  v_old record;
  v_new record;
  v_max_bytes bigint := queen_internal.stream_limit('max_value_bytes');
BEGIN
  IF v_count = 0 THEN
    RETURN 0;
  END IF;
  PERFORM queen_internal.check_stream_limit('max_state_ops', 'state_ops', v_count);
  SELECT coalesce(o ->> 'type', 'null') INTO v_bad FROM jsonb_array_elements(p_ops) o
   WHERE jsonb_typeof(o) IS DISTINCT FROM 'object' OR (o ->> 'type') IS NULL OR (o ->> 'type') NOT IN ('upsert', 'delete')
   LIMIT 1;
  IF FOUND THEN
    RAISE EXCEPTION 'Unknown state_op type: %', v_bad USING ERRCODE = 'QS001';
  END IF;
  PERFORM 1 FROM jsonb_array_elements(p_ops) o
   WHERE jsonb_typeof(o -> 'key') IS DISTINCT FROM 'string' OR octet_length(o ->> 'key') NOT BETWEEN 1 AND 1024;
  IF FOUND THEN
    RAISE EXCEPTION 'state_op key must be a string of 1 to 1024 bytes' USING ERRCODE = 'QS001';
  END IF;
  IF v_max_bytes > 0 THEN
    SELECT f.key, f.bytes - octet_length(f.key) AS value_bytes INTO v_new
      FROM queen_internal.stream_final_ops(p_ops) f WHERE f.upsert AND f.bytes - octet_length(f.key) > v_max_bytes
     LIMIT 1;
    IF FOUND THEN
      RAISE EXCEPTION 'state value of key % (% bytes) exceeds the limit of % (QUEEN_STREAM_MAX_VALUE_BYTES)',
        v_new.key, v_new.value_bytes, v_max_bytes USING ERRCODE = '22023';
    END IF;
  END IF;

  SELECT count(*) AS keys, coalesce(sum(s.counted_bytes), 0)::bigint AS bytes INTO v_old
    FROM queen.stream_state s JOIN queen_internal.stream_final_ops(p_ops) f ON f.key = s.key
   WHERE s.query_id = q.id AND s.partition_id = p_partition_id;
  SELECT count(*) AS keys, coalesce(sum(f.bytes), 0)::bigint AS bytes INTO v_new
    FROM queen_internal.stream_final_ops(p_ops) f WHERE f.upsert;
  -- The quota before any row is written, so a refused cycle leaves no row, TOAST or WAL; add_stream_usage
  -- below checks again, exactly, against cycles of the tenant racing past this check.
  IF v_new.bytes > v_old.bytes AND queen_internal.tenant_quota_limit(q.tenant, 'stream_state_bytes') > 0 THEN
    PERFORM queen_internal.check_tenant_quota(q.tenant, 'stream_state_bytes',
              (SELECT coalesce(sum(u.state_bytes), 0)::bigint FROM queen.stream_usage u WHERE u.tenant = q.tenant)
              + v_new.bytes - v_old.bytes);
  END IF;
  DELETE FROM queen.stream_state s USING queen_internal.stream_final_ops(p_ops) f
   WHERE s.query_id = q.id AND s.partition_id = p_partition_id AND s.key = f.key AND NOT f.upsert;
  INSERT INTO queen.stream_state AS s (query_id, partition_id, key, value, tenant, counted_bytes, updated_at)
  SELECT q.id, p_partition_id, f.key, f.value, q.tenant, f.bytes, p_now
    FROM queen_internal.stream_final_ops(p_ops) f WHERE f.upsert
   ORDER BY f.key
  ON CONFLICT ON CONSTRAINT stream_state_pkey DO UPDATE
     SET value = EXCLUDED.value, counted_bytes = EXCLUDED.counted_bytes, updated_at = EXCLUDED.updated_at;
  PERFORM queen_internal.add_stream_usage(q.tenant, v_new.keys - v_old.keys, v_new.bytes - v_old.bytes);
  RETURN v_count;
END;
$function$;

COMMENT ON FUNCTION queen_internal.apply_stream_state_ops(q queen.stream_queries, p_partition_id uuid, p_ops jsonb, p_now timestamp with time zone) IS 'Internal to stream_cycle: applies state ops [{type: upsert|delete, key, value?}] in order to one shard (the last op of a key decides), keeps the tenant''s usage; returns the op count. QS001 on an unknown type or a bad key; 22023 past QUEEN_STREAM_MAX_STATE_OPS or QUEEN_STREAM_MAX_VALUE_BYTES; QQ429 past the state quota, raised before any state row is written.';
