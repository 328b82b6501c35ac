-- ------------------------------------------------------------------- reads
-- The query of a (tenant, query id): null when the id is not a UUID or not the tenant's.
CREATE OR REPLACE FUNCTION queen_internal.stream_query_of(p_tenant text, p_query_id text)
 RETURNS queen.stream_queries
 LANGUAGE sql STABLE AS $function$
  SELECT s.* FROM queen.stream_queries s WHERE s.id = queen_internal.uuid_or_null(p_query_id) AND s.tenant = p_tenant
$function$;

COMMENT ON FUNCTION queen_internal.stream_query_of(p_tenant text, p_query_id text) IS 'The stream query with id p_query_id of tenant p_tenant; null when p_query_id is not a UUID or names no query of the tenant.';
