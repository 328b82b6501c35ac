CREATE OR REPLACE FUNCTION queen.list_partitions(p_queue text, p_limit integer, p_offset integer, p_tenant text)
 RETURNS jsonb
 LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path TO 'pg_catalog', 'queen', 'queen_internal', 'pg_temp' AS $function$
DECLARE
  v_result jsonb;
BEGIN
  PERFORM queen_internal.check_at_least('limit', p_limit, 1);
  PERFORM queen_internal.check_at_least('offset', p_offset, 0);
  SELECT jsonb_build_object('partitions', coalesce(jsonb_agg(x.item ORDER BY x.queue_name, x.name), '[]'::jsonb))
    INTO v_result
    FROM (SELECT q.name AS queue_name, p.name, jsonb_build_object(
                 'id', p.id, 'name', p.name, 'queue', q.name, 'createdAt', queen_internal.iso_millis(p.created_at),
                 'messages', jsonb_build_object('total', p.last_seq,
                                                'pending', p.last_seq - coalesce(c.min_cursor, 0))) AS item
            FROM queen.queues q
            JOIN queen.partitions p ON p.queue_id = q.id
            LEFT JOIN LATERAL (SELECT min(least(c.cursor_seq, p.last_seq)) AS min_cursor
                                 FROM queen.consumers c WHERE c.partition_id = p.id) c ON true
           WHERE q.tenant = queen_internal.tenant_arg(p_tenant) AND (p_queue IS NULL OR q.name = p_queue)
           ORDER BY q.name, p.name
           LIMIT p_limit OFFSET p_offset) x;
  RETURN v_result;
END;
$function$;

COMMENT ON FUNCTION queen.list_partitions(p_queue text, p_limit integer, p_offset integer, p_tenant text) IS 'Partitions of tenant p_tenant (of queue p_queue when given), by queue then name, paged: {"partitions": [{id, name, queue, createdAt, messages: {total (messages ever stored), pending (not yet consumed by the slowest group)}}]}. 22023 on limit < 1 or offset < 0.';
GRANT EXECUTE ON FUNCTION queen.list_partitions(p_queue text, p_limit integer, p_offset integer, p_tenant text) TO queen_admin, queen_broker, queen_reader;
