CREATE OR REPLACE FUNCTION queen.trace_names(p_limit integer, p_offset integer, p_tenant text)
 RETURNS jsonb
 LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path TO 'pg_catalog', 'queen', 'queen_internal', 'pg_temp' AS $function$
DECLARE
  v_result jsonb;
BEGIN
  PERFORM queen_internal.check_at_least('limit', p_limit, 1);
  PERFORM queen_internal.check_at_least('offset', p_offset, 0);
  WITH named AS (
    SELECT n.name, count(*) AS trace_count, count(DISTINCT (t.partition_id, t.transaction_id)) AS message_count,
           max(t.created_at) AS last_seen
      FROM queen.message_traces t CROSS JOIN LATERAL unnest(t.trace_names) AS n(name)
     WHERE t.tenant = queen_internal.tenant_arg(p_tenant)
     GROUP BY n.name
  ), page AS (
    SELECT * FROM named ORDER BY last_seen DESC, name LIMIT p_limit OFFSET p_offset
  )
  SELECT jsonb_build_object(
           'trace_names', coalesce((SELECT jsonb_agg(jsonb_build_object(
               'trace_name', pg.name, 'trace_count', pg.trace_count, 'message_count', pg.message_count,
               'last_seen', queen_internal.iso_millis(pg.last_seen)) ORDER BY pg.last_seen DESC, pg.name) FROM page pg), '[]'::jsonb),
           'total', (SELECT count(*) FROM named),
           'pagination', jsonb_build_object('limit', p_limit, 'offset', p_offset))
    INTO v_result;
  RETURN v_result;
END;
$function$;

COMMENT ON FUNCTION queen.trace_names(p_limit integer, p_offset integer, p_tenant text) IS 'The trace names of tenant p_tenant, most recently used first, paged: {"trace_names": [{trace_name, trace_count, message_count, last_seen}], "total", "pagination": {limit, offset}}. 22023 on limit < 1 or offset < 0.';
GRANT EXECUTE ON FUNCTION queen.trace_names(p_limit integer, p_offset integer, p_tenant text) TO queen_admin, queen_broker, queen_reader;
