CREATE OR REPLACE FUNCTION queen.list_messages(p_queue text, p_partition text, p_namespace text, p_task text, p_status text, p_from timestamp with time zone, p_to timestamp with time zone, p_limit integer, p_offset integer, p_tenant text)
 RETURNS jsonb
 LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path TO 'pg_catalog', 'queen', 'queen_internal', 'pg_temp' AS $function$
DECLARE
  v_now timestamptz := clock_timestamp();
  v_to timestamptz := coalesce(p_to, date_trunc('minute', now()) + interval '1 minute');
  v_from timestamptz := coalesce(p_from, now() - interval '1 hour');
  v_take int;
  v_partitions uuid[];
  v_messages jsonb;
BEGIN
  PERFORM queen_internal.check_at_least('limit', p_limit, 1);
  PERFORM queen_internal.check_at_least('offset', p_offset, 0);
  IF p_status IS NOT NULL AND p_status NOT IN ('pending', 'processing', 'completed', 'dead_letter') THEN
    RAISE EXCEPTION 'status must be pending, processing, completed or dead_letter' USING ERRCODE = '22023';
  END IF;
  v_take := p_limit + p_offset;
  SELECT array_agg(p.id) INTO v_partitions
    FROM queen.queues q JOIN queen.partitions p ON p.queue_id = q.id
   WHERE q.tenant = queen_internal.tenant_arg(p_tenant)
     AND (p_queue IS NULL OR q.name = p_queue) AND (p_partition IS NULL OR p.name = p_partition)
     AND (p_namespace IS NULL OR q.namespace = p_namespace) AND (p_task IS NULL OR q.task = p_task);
  WITH ranges AS (
    SELECT p.id, p.name, q.name AS queue_name, q.namespace, q.task, q.priority,
           CASE WHEN p_status IS NULL THEN 1
                ELSE queen_internal.partition_seq_at(p.id, p.last_seq, v_from - interval '1 microsecond') + 1 END AS low_seq,
           CASE WHEN p.last_message_at <= v_to THEN p.last_seq
                ELSE queen_internal.partition_seq_at(p.id, p.last_seq, v_to) END AS high_seq,
           p.last_message_at, c.min_cursor, c.max_lease_seq
      FROM queen.partitions p
      JOIN queen.queues q ON q.id = p.queue_id
      LEFT JOIN LATERAL (SELECT min(x.cursor_seq) AS min_cursor,
                                max(x.lease_max_seq) FILTER (WHERE x.lease_id IS NOT NULL AND x.lease_expires_at > v_now)
                                  AS max_lease_seq
                           FROM queen.consumers x WHERE x.partition_id = p.id) c ON true
     WHERE p.id = ANY (v_partitions) AND p.last_message_at >= v_from
  ), newest AS (
    -- Without a status filter the page's rows lie in the limit + offset partitions
    -- whose newest message of the window is newest: only those are read.
    SELECT r.* FROM ranges r
     ORDER BY CASE WHEN p_status IS NULL THEN
                (SELECT s.created_at FROM queen.segments s
                  WHERE s.partition_id = r.id AND s.base_seq <= r.high_seq AND s.payloads IS NOT NULL
                  ORDER BY s.base_seq DESC LIMIT 1) END DESC NULLS LAST
     LIMIT CASE WHEN p_status IS NULL THEN v_take END
  ), narrowed AS (
    SELECT r.*,
           CASE WHEN p_status IN ('pending', 'processing') THEN greatest(r.low_seq, coalesce(r.min_cursor, 0) + 1)
                ELSE r.low_seq END AS lo,
           CASE WHEN p_status = 'completed' THEN least(r.high_seq, coalesce(r.min_cursor, 0))
                WHEN p_status = 'processing' THEN least(r.high_seq, coalesce(r.max_lease_seq, 0))
                ELSE r.high_seq END AS hi
      FROM newest r
  ), candidates AS (
    SELECT n.id AS partition_id, n.name AS partition_name, n.queue_name, n.namespace, n.task, n.priority,
           m.seq, m.id, m.transaction_id, m.trace_id, m.producer_sub, m.created_at
      FROM narrowed n
      CROSS JOIN LATERAL (
        SELECT m.seq, m.message_id AS id, m.transaction_id, m.trace_id, m.producer_sub, m.created_at
          FROM queen_internal.segment_messages_desc(n.id, n.lo, n.hi) m
         WHERE (p_status IS NULL OR p_status <> 'dead_letter')
           AND (p_status IS NULL
                OR (SELECT s.status FROM queen_internal.message_delivery(n.id, m.message_id, m.seq, v_now) s) = p_status)
         LIMIT v_take) m
     WHERE m.created_at >= v_from
    UNION ALL
    SELECT n.id, n.name, n.queue_name, n.namespace, n.task, n.priority,
           m.seq, m.id, m.transaction_id, m.trace_id, m.producer_sub, m.created_at
      FROM narrowed n
      CROSS JOIN LATERAL (
        SELECT DISTINCT d.seq FROM queen.dlq d
         WHERE p_status = 'dead_letter' AND d.partition_id = n.id AND d.seq BETWEEN n.lo AND n.hi
         ORDER BY d.seq DESC LIMIT v_take) d
      CROSS JOIN LATERAL (SELECT m.seq, m.message_id AS id, m.transaction_id, m.trace_id, m.producer_sub, m.created_at
                            FROM queen_internal.segment_messages(n.id, d.seq - 1, 1) m WHERE m.seq = d.seq) m
     WHERE m.created_at >= v_from
  ), page AS (
    SELECT * FROM candidates c ORDER BY c.created_at DESC, c.id DESC LIMIT p_limit OFFSET p_offset
  )
  SELECT coalesce(jsonb_agg(jsonb_build_object(
           'id', g.id, 'transactionId', g.transaction_id, 'partitionId', g.partition_id,
           'queuePath', g.queue_name || '/' || g.partition_name, 'queue', g.queue_name, 'partition', g.partition_name,
           'namespace', nullif(g.namespace, ''), 'task', nullif(g.task, ''),
           'status', s.status, 'queueStatus', s.queue_status,
           'busStatus', jsonb_build_object('consumedBy', s.consumed_by, 'totalGroups', s.total_groups),
           'traceId', g.trace_id, 'producerSub', g.producer_sub, 'queuePriority', g.priority,
           'createdAt', queen_internal.iso_millis(g.created_at),
           'leaseExpiresAt', queen_internal.iso_millis(s.lease_expires_at)) ORDER BY g.created_at DESC, g.id DESC), '[]'::jsonb)
    INTO v_messages
    FROM page g
    CROSS JOIN LATERAL queen_internal.message_delivery(g.partition_id, g.id, g.seq, v_now) s;
  RETURN jsonb_build_object('messages', v_messages, 'mode', queen_internal.partitions_mode(coalesce(v_partitions, '{}')));
END;
$function$;

COMMENT ON FUNCTION queen.list_messages(p_queue text, p_partition text, p_namespace text, p_task text, p_status text, p_from timestamp with time zone, p_to timestamp with time zone, p_limit integer, p_offset integer, p_tenant text) IS 'Messages of tenant p_tenant created in [p_from, p_to] (defaults: now - 1 hour, the next whole minute), newest first, paged, without payloads: {"messages": [{id, transactionId, partitionId, queuePath, queue, partition, namespace, task, status, queueStatus, busStatus: {consumedBy, totalGroups}, traceId, producerSub, queuePriority, createdAt, leaseExpiresAt}], "mode": {hasQueueMode, busGroupsCount, type}}. Limit first: at most limit + offset rows per selected partition read through the primary key, status computed for the page only (docs/limits.md, "Listings"). 22023 on limit < 1, offset < 0 or an unknown status.';
GRANT EXECUTE ON FUNCTION queen.list_messages(p_queue text, p_partition text, p_namespace text, p_task text, p_status text, p_from timestamp with time zone, p_to timestamp with time zone, p_limit integer, p_offset integer, p_tenant text) TO queen_admin, queen_broker, queen_reader;
