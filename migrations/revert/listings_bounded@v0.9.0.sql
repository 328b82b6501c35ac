-- Revert queen:listings_bounded from pg
BEGIN;

DROP FUNCTION queen.list_messages(text, text, text, text, text, timestamptz, timestamptz, int, int, text);
DROP FUNCTION queen.traces_by_name(text, int, int, text, bigint);
DROP FUNCTION queen.partition_seq_at(uuid, bigint, timestamptz);
CREATE FUNCTION queen.list_messages(p_queue text, p_partition text,
                                    p_namespace text, p_task text,
                                    p_status text, p_from timestamptz,
                                    p_to timestamptz, p_limit int, p_offset int,
                                    p_tenant text)
RETURNS jsonb
LANGUAGE plpgsql STABLE AS $$
DECLARE
  v_now timestamptz := clock_timestamp();
  v_to timestamptz := coalesce(p_to, date_trunc('minute', now()) + interval '1 minute');
  v_from timestamptz := coalesce(p_from, now() - interval '1 hour');
  v_partitions uuid[];
  v_messages jsonb;
BEGIN
  PERFORM queen.check_at_least('limit', p_limit, 1);
  PERFORM queen.check_at_least('offset', p_offset, 0);
  IF p_status IS NOT NULL AND p_status NOT IN ('pending', 'processing', 'completed', 'dead_letter') THEN
    RAISE EXCEPTION 'status must be pending, processing, completed or dead_letter' USING ERRCODE = '22023';
  END IF;
  SELECT array_agg(p.id) INTO v_partitions
    FROM queen.queues q JOIN queen.partitions p ON p.queue_id = q.id
   WHERE q.tenant = queen.tenant_arg(p_tenant)
     AND (p_queue IS NULL OR q.name = p_queue) AND (p_partition IS NULL OR p.name = p_partition)
     AND (p_namespace IS NULL OR q.namespace = p_namespace) AND (p_task IS NULL OR q.task = p_task);
  SELECT coalesce(jsonb_agg(x.item ORDER BY x.created_at DESC, x.id DESC), '[]'::jsonb) INTO v_messages
    FROM (SELECT m.created_at, m.id, jsonb_build_object(
                 'id', m.id, 'transactionId', m.transaction_id, 'partitionId', m.partition_id,
                 'queuePath', q.name || '/' || p.name, 'queue', q.name, 'partition', p.name,
                 'namespace', nullif(q.namespace, ''), 'task', nullif(q.task, ''),
                 'status', s.status, 'queueStatus', s.queue_status,
                 'busStatus', jsonb_build_object('consumedBy', s.consumed_by, 'totalGroups', s.total_groups),
                 'traceId', m.trace_id, 'producerSub', m.producer_sub, 'queuePriority', q.priority,
                 'createdAt', queen.iso_millis(m.created_at),
                 'leaseExpiresAt', queen.iso_millis(s.lease_expires_at)) AS item
            FROM queen.messages m
            JOIN queen.partitions p ON p.id = m.partition_id
            JOIN queen.queues q ON q.id = p.queue_id
            CROSS JOIN LATERAL queen.message_delivery(m.partition_id, m.id, m.seq, v_now) s
           WHERE m.partition_id = ANY (v_partitions) AND m.created_at BETWEEN v_from AND v_to
             AND (p_status IS NULL OR s.status = p_status)
           ORDER BY m.created_at DESC, m.id DESC
           LIMIT p_limit OFFSET p_offset) x;
  RETURN jsonb_build_object('messages', v_messages, 'mode', queen.partitions_mode(coalesce(v_partitions, '{}')));
END;
$$;
COMMENT ON FUNCTION queen.list_messages(text, text, text, text, text, timestamptz, timestamptz, int, int, text) IS
  'Messages of tenant p_tenant created in [p_from, p_to] (defaults: now - 1 hour, the next whole minute), newest first, paged, without payloads: {"messages": [{id, transactionId, partitionId, queuePath, queue, partition, namespace, task, status, queueStatus, busStatus: {consumedBy, totalGroups}, traceId, producerSub, queuePriority, createdAt, leaseExpiresAt}], "mode": {hasQueueMode, busGroupsCount, type}}. Reads the window through a BRIN index on created_at. 22023 on limit < 1, offset < 0 or an unknown status.';

CREATE FUNCTION queen.traces_by_name(p_trace_name text, p_limit int, p_offset int,
                                     p_tenant text)
RETURNS jsonb
LANGUAGE plpgsql STABLE AS $$
DECLARE
  v_tenant text := queen.tenant_arg(p_tenant);
  v_total bigint;
  v_traces jsonb;
BEGIN
  PERFORM queen.check_at_least('limit', p_limit, 1);
  PERFORM queen.check_at_least('offset', p_offset, 0);
  SELECT count(*) INTO v_total FROM queen.message_traces t
   WHERE t.trace_names @> ARRAY[p_trace_name] AND t.tenant = v_tenant;
  SELECT coalesce(jsonb_agg(x.trace ORDER BY x.created_at DESC, x.id), '[]'::jsonb) INTO v_traces
    FROM (SELECT t.id, t.created_at, jsonb_build_object(
                 'id', t.id, 'transaction_id', t.transaction_id, 'partition_id', t.partition_id,
                 'event_type', t.event_type, 'data', t.data, 'consumer_group', t.consumer_group,
                 'worker_id', t.worker_id, 'created_at', queen.iso_millis(t.created_at),
                 'queue_name', q.name, 'partition_name', p.name, 'message_payload', m.payload,
                 'message_encrypted', m.is_encrypted, 'trace_names', to_jsonb(t.trace_names)) AS trace
            FROM queen.message_traces t
            JOIN queen.messages m ON m.partition_id = t.partition_id AND m.transaction_id = t.transaction_id
            JOIN queen.partitions p ON p.id = t.partition_id
            JOIN queen.queues q ON q.id = p.queue_id
           WHERE t.trace_names @> ARRAY[p_trace_name] AND t.tenant = v_tenant
           ORDER BY t.created_at DESC, t.id
           LIMIT p_limit OFFSET p_offset) x;
  RETURN jsonb_build_object('traces', v_traces, 'total', v_total,
                            'pagination', jsonb_build_object('limit', p_limit, 'offset', p_offset));
END;
$$;
COMMENT ON FUNCTION queen.traces_by_name(text, int, int, text) IS
  'Traces of tenant p_tenant carrying p_trace_name, newest first, paged: {"traces": [{id, transaction_id, partition_id, event_type, data, consumer_group, worker_id, created_at, queue_name, partition_name, message_payload, message_encrypted, trace_names}], "total", "pagination": {limit, offset}}. message_payload is as stored (the broker decrypts it and drops message_encrypted). 22023 on limit < 1 or offset < 0.';

COMMIT;
