CREATE OR REPLACE FUNCTION queen.list_dlq(p_queue text, p_group text, p_partition text, p_from timestamp with time zone, p_to timestamp with time zone, p_limit integer, p_offset integer, p_tenant text, p_max_payload_bytes bigint DEFAULT NULL::bigint)
 RETURNS TABLE(message_id uuid, transaction_id text, partition_id uuid, queue_name text, partition_name text, consumer_group text, error_message text, retry_count integer, payload jsonb, payload_omitted boolean, is_encrypted boolean, producer_sub text, trace_id uuid, created_at timestamp with time zone, failed_at timestamp with time zone, total bigint)
 LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path TO 'pg_catalog', 'queen', 'queen_internal', 'pg_temp' AS $function$
#variable_conflict use_column
DECLARE
  v_budget bigint := coalesce(p_max_payload_bytes, queen_internal.list_max_payload_bytes());
BEGIN
  PERFORM queen_internal.check_at_least('limit', p_limit, 1);
  PERFORM queen_internal.check_at_least('offset', p_offset, 0);
  PERFORM queen_internal.check_at_least('maxPayloadBytes', v_budget, 0);
  RETURN QUERY
  WITH matching AS (
    SELECT f.message_id, f.consumer_group, f.failed_at, f.queue_name, f.partition_name
      FROM queen_internal.dlq_matching(p_tenant, p_queue, p_group, p_partition, p_from, p_to, NULL) f
  ), page AS (
    SELECT m.*, (SELECT count(*) FROM matching) AS n FROM matching m
     ORDER BY m.failed_at DESC, m.message_id, m.consumer_group
     LIMIT p_limit OFFSET p_offset
  ), sized AS (
    SELECT pg.*, d.transaction_id, d.partition_id, d.error_message, d.retry_count, d.is_encrypted, d.producer_sub,
           d.trace_id, d.message_created_at,
           sum(coalesce(pl.payload_bytes, 4)) OVER (ORDER BY pg.failed_at DESC, pg.message_id, pg.consumer_group
                                                    ROWS UNBOUNDED PRECEDING) AS bytes_so_far
      FROM page pg
      JOIN queen.dlq d ON d.message_id = pg.message_id AND d.consumer_group = pg.consumer_group
      LEFT JOIN queen.dlq_payloads pl ON pl.message_id = pg.message_id
  )
  SELECT s.message_id, s.transaction_id, s.partition_id, s.queue_name::text, s.partition_name::text,
         s.consumer_group::text, s.error_message, s.retry_count,
         CASE WHEN s.bytes_so_far <= v_budget THEN (SELECT pl.payload FROM queen.dlq_payloads pl
                                                     WHERE pl.message_id = s.message_id) END,
         s.bytes_so_far > v_budget, s.is_encrypted, s.producer_sub, s.trace_id, s.message_created_at, s.failed_at,
         s.n
    FROM sized s
   ORDER BY s.failed_at DESC, s.message_id, s.consumer_group;
END;
$function$;

COMMENT ON FUNCTION queen.list_dlq(p_queue text, p_group text, p_partition text, p_from timestamp with time zone, p_to timestamp with time zone, p_limit integer, p_offset integer, p_tenant text, p_max_payload_bytes bigint) IS 'Dead letters of the queues of tenant p_tenant matching the filters (null = any; p_from/p_to bound failed_at), newest failure first, paged by p_limit/p_offset. Payloads (stored once per message) are returned in page order while their JSON text sizes add up to at most p_max_payload_bytes (null = list_max_payload_bytes()); later rows have payload null and payload_omitted. Every row carries total = matching entries before paging; an offset past the end returns no rows. Cost: one pass over the matching narrow entry rows (sort and total), payloads read for the page only. 22023 on limit < 1, offset < 0 or a negative budget.';
GRANT EXECUTE ON FUNCTION queen.list_dlq(p_queue text, p_group text, p_partition text, p_from timestamp with time zone, p_to timestamp with time zone, p_limit integer, p_offset integer, p_tenant text, p_max_payload_bytes bigint) TO queen_admin, queen_broker, queen_reader;
