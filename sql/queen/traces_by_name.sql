CREATE OR REPLACE FUNCTION queen.traces_by_name(p_trace_name text, p_limit integer, p_offset integer, p_tenant text, p_max_payload_bytes bigint DEFAULT NULL::bigint)
 RETURNS jsonb
 LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path TO 'pg_catalog', 'queen', 'queen_internal', 'pg_temp' AS $function$
DECLARE
  v_tenant text := queen_internal.tenant_arg(p_tenant);
  v_budget bigint := coalesce(p_max_payload_bytes, queen_internal.list_max_payload_bytes());
  v_total bigint;
  v_traces jsonb;
BEGIN
  PERFORM queen_internal.check_at_least('limit', p_limit, 1);
  PERFORM queen_internal.check_at_least('offset', p_offset, 0);
  PERFORM queen_internal.check_at_least('maxPayloadBytes', v_budget, 0);
  SELECT count(*) INTO v_total FROM queen.message_traces t
   WHERE t.trace_names @> ARRAY[p_trace_name] AND t.tenant = v_tenant;
  WITH page AS (
    SELECT t.* FROM queen.message_traces t
     WHERE t.trace_names @> ARRAY[p_trace_name] AND t.tenant = v_tenant
     ORDER BY t.created_at DESC, t.id
     LIMIT p_limit OFFSET p_offset
  ), firsts AS (
    SELECT pg.*, m.payload::jsonb AS payload, m.is_encrypted,
           row_number() OVER (PARTITION BY pg.partition_id, pg.transaction_id ORDER BY pg.created_at DESC, pg.id) = 1
             AS first_of_message
      FROM page pg
      CROSS JOIN LATERAL queen_internal.segment_messages(
                           pg.partition_id, queen_internal.message_seq(pg.partition_id, pg.transaction_id) - 1, 1) m
  ), sized AS (
    SELECT f.*, sum(CASE WHEN f.first_of_message THEN coalesce(octet_length(f.payload::text), 4) ELSE 0 END)
                  OVER (ORDER BY f.created_at DESC, f.id ROWS UNBOUNDED PRECEDING) AS bytes_so_far
      FROM firsts f
  )
  SELECT coalesce(jsonb_agg(jsonb_build_object(
           'id', s.id, 'transaction_id', s.transaction_id, 'partition_id', s.partition_id,
           'event_type', s.event_type, 'data', s.data, 'consumer_group', s.consumer_group,
           'worker_id', s.worker_id, 'created_at', queen_internal.iso_millis(s.created_at),
           'queue_name', q.name, 'partition_name', p.name,
           'message_payload', CASE WHEN s.first_of_message AND s.bytes_so_far <= v_budget THEN s.payload END,
           'message_encrypted', s.is_encrypted AND s.first_of_message AND s.bytes_so_far <= v_budget,
           'trace_names', to_jsonb(s.trace_names))
           || CASE WHEN s.first_of_message AND s.bytes_so_far <= v_budget THEN '{}'::jsonb
                   ELSE '{"payloadOmitted": true}'::jsonb END
           ORDER BY s.created_at DESC, s.id), '[]'::jsonb)
    INTO v_traces
    FROM sized s
    JOIN queen.partitions p ON p.id = s.partition_id
    JOIN queen.queues q ON q.id = p.queue_id;
  RETURN jsonb_build_object('traces', v_traces, 'total', v_total,
                            'pagination', jsonb_build_object('limit', p_limit, 'offset', p_offset));
END;
$function$;

COMMENT ON FUNCTION queen.traces_by_name(p_trace_name text, p_limit integer, p_offset integer, p_tenant text, p_max_payload_bytes bigint) IS 'Traces of tenant p_tenant carrying p_trace_name, newest first, paged: {"traces": [{id, transaction_id, partition_id, event_type, data, consumer_group, worker_id, created_at, queue_name, partition_name, message_payload, message_encrypted, trace_names[, payloadOmitted]}], "total", "pagination": {limit, offset}}. A message''s payload is on its newest trace of the page only, while the page''s payload bytes stay within p_max_payload_bytes (null = list_max_payload_bytes()); other traces carry message_payload null and payloadOmitted true. message_payload is as stored (the broker decrypts it and drops message_encrypted). 22023 on limit < 1, offset < 0 or a negative budget.';
GRANT EXECUTE ON FUNCTION queen.traces_by_name(p_trace_name text, p_limit integer, p_offset integer, p_tenant text, p_max_payload_bytes bigint) TO queen_admin, queen_broker, queen_reader;
