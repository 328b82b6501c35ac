CREATE OR REPLACE FUNCTION queen.status_queue_messages(p_tenant text, p_params jsonb)
 RETURNS jsonb
 LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path TO 'pg_catalog', 'queen', 'queen_internal', 'pg_temp' AS $function$
DECLARE
  v_queue queen.queues;
  v_limit int := coalesce((p_params->>'limit')::int, 50);
  v_offset int := coalesce((p_params->>'offset')::int, 0);
BEGIN
  SELECT * INTO v_queue FROM queen.queues q
   WHERE q.tenant = queen_internal.tenant_arg(p_tenant) AND q.name = p_params->>'queue';
  IF NOT FOUND THEN
    RETURN NULL;
  END IF;
  RETURN (
    -- The newest limit+offset messages lie in the limit+offset partitions with the newest
    -- last_message_at; of each, the newest limit+offset (segment_messages_desc: segments backwards), then merged.
    WITH newest_partitions AS (
      SELECT p.id, p.name, p.last_seq FROM queen.partitions p
       WHERE p.queue_id = v_queue.id AND p.last_message_at IS NOT NULL
       ORDER BY p.last_message_at DESC LIMIT v_limit + v_offset
    ), candidates AS (
      SELECT p.id AS partition_id, p.name AS partition_name, m.*
        FROM newest_partitions p
        CROSS JOIN LATERAL (
          SELECT m.seq, m.message_id AS id, m.transaction_id, m.trace_id, m.producer_sub, m.created_at
            FROM queen_internal.segment_messages_desc(p.id, 1, p.last_seq) m
           LIMIT v_limit + v_offset) m
    ), page AS (
      SELECT * FROM candidates ORDER BY created_at DESC, id DESC LIMIT v_limit OFFSET v_offset
    )
    SELECT jsonb_build_object(
      'messages', coalesce(jsonb_agg(jsonb_build_object(
          'id', x.id, 'transactionId', x.transaction_id, 'partitionId', x.partition_id,
          'queuePath', v_queue.name || '/' || x.partition_name, 'queue', v_queue.name, 'partition', x.partition_name,
          'traceId', x.trace_id, 'producerSub', x.producer_sub,
          'status', CASE
             WHEN EXISTS (SELECT 1 FROM queen.dlq d WHERE d.message_id = x.id) THEN 'dead_letter'
             WHEN c.cursor_seq >= x.seq THEN 'completed'
             WHEN c.lease_id IS NOT NULL AND c.lease_expires_at > clock_timestamp() AND x.seq <= c.lease_max_seq
               THEN 'processing'
             ELSE 'pending' END,
          'createdAt', queen_internal.iso_millis(x.created_at)) ORDER BY x.created_at DESC, x.id DESC), '[]'::jsonb),
      'pagination', jsonb_build_object('limit', v_limit, 'offset', v_offset))
      FROM page x
      LEFT JOIN queen.consumers c ON c.partition_id = x.partition_id AND c.consumer_group = queen_internal.queue_mode_group()
  );
END;
$function$;

COMMENT ON FUNCTION queen.status_queue_messages(p_tenant text, p_params jsonb) IS 'GET /api/v1/status/queues/:queue/messages: the newest messages of the queue (limit 50, offset 0), each with its queue-mode status (completed, processing, pending, dead_letter); reads at most limit+offset rows of each of the limit+offset partitions with the newest messages, from their newest segments back. Null when the tenant has no such queue.';
GRANT EXECUTE ON FUNCTION queen.status_queue_messages(p_tenant text, p_params jsonb) TO queen_admin, queen_broker, queen_reader;
