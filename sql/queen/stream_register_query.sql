-- ---------------------------------------------------------------- register
CREATE OR REPLACE FUNCTION queen.stream_register_query(p_request jsonb, p_tenant text)
 RETURNS jsonb
 LANGUAGE plpgsql SECURITY DEFINER SET search_path TO 'pg_catalog', 'queen', 'queen_internal', 'pg_temp' SET jit TO 'off' AS $function$
DECLARE
  v_tenant text := queen_internal.tenant_arg(p_tenant);
  v_name text := p_request ->> 'name';
  v_source text := p_request ->> 'source_queue';
  v_sink text := nullif(p_request ->> 'sink_queue', '');
  v_hash text := p_request ->> 'config_hash';
  v_reset bool := coalesce(jsonb_typeof(p_request -> 'reset') = 'boolean' AND (p_request ->> 'reset')::bool, false);
  q queen.stream_queries;
  v_fresh bool := false;
  v_did_reset bool := false;
  v_gone record;
BEGIN
  IF length(v_hash) > 1024 THEN
    RAISE EXCEPTION 'config_hash must be at most 1024 characters' USING ERRCODE = '22023';
  END IF;
  IF coalesce(v_name, '') = '' THEN
    RAISE EXCEPTION 'name is required' USING ERRCODE = '22023';
  ELSIF coalesce(v_source, '') = '' THEN
    RAISE EXCEPTION 'source_queue is required' USING ERRCODE = '22023';
  ELSIF coalesce(v_hash, '') = '' THEN
    RAISE EXCEPTION 'config_hash is required' USING ERRCODE = '22023';
  END IF;

  INSERT INTO queen.stream_queries (tenant, name, source_queue, sink_queue, config_hash)
  VALUES (v_tenant, v_name, v_source, v_sink, v_hash)
  ON CONFLICT ON CONSTRAINT stream_queries_tenant_name_key DO NOTHING
  RETURNING * INTO q;
  IF FOUND THEN
    v_fresh := true;
  ELSE
    SELECT * INTO q FROM queen.stream_queries s WHERE s.tenant = v_tenant AND s.name = v_name FOR UPDATE;
    IF q.config_hash <> v_hash AND NOT v_reset THEN
      RETURN jsonb_build_object('success', false, 'query_id', q.id, 'name', q.name, 'error',
        format('config_hash mismatch: operator chain changed for queryId ''%s''. Pass reset:true to wipe existing '
               'state, or use a new queryId.', q.name));
    END IF;
    IF q.config_hash <> v_hash THEN
      -- reset: the state goes, the id (and so the group cursor) stays
      WITH gone AS (DELETE FROM queen.stream_state s WHERE s.query_id = q.id RETURNING s.counted_bytes)
      SELECT count(*) AS keys, coalesce(sum(counted_bytes), 0)::bigint AS bytes INTO v_gone FROM gone;
      PERFORM queen_internal.add_stream_usage(v_tenant, -v_gone.keys, -v_gone.bytes);
      DELETE FROM queen.stream_cycle_keys k WHERE k.query_id = q.id;
      v_did_reset := true;
    END IF;
    UPDATE queen.stream_queries s
       SET source_queue = v_source, sink_queue = v_sink, config_hash = v_hash, updated_at = now()
     WHERE s.id = q.id;
  END IF;
  RETURN jsonb_build_object('success', true, 'query_id', q.id, 'name', q.name, 'config_hash', v_hash,
                            'fresh', v_fresh, 'reset', v_did_reset);
END;
$function$;

COMMENT ON FUNCTION queen.stream_register_query(p_request jsonb, p_tenant text) IS 'POST /streams/v1/queries for tenant p_tenant. p_request {name, source_queue, config_hash, sink_queue?, reset?}. New name: inserted (fresh). Same hash: queue names updated, state kept (reset ignored). Other hash with reset: state and idempotency keys deleted, hash stored, id kept (reset). Other hash without reset: nothing changes, {success:false, query_id, name, error:"config_hash mismatch: ..."}. 22023 when a required field is missing.';
GRANT EXECUTE ON FUNCTION queen.stream_register_query(p_request jsonb, p_tenant text) TO queen_admin, queen_broker;
