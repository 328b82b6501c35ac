CREATE OR REPLACE FUNCTION queen.get_message(p_partition_id uuid, p_transaction_id text, p_tenant text)
 RETURNS jsonb
 LANGUAGE sql STABLE SECURITY DEFINER SET search_path TO 'pg_catalog', 'queen', 'queen_internal', 'pg_temp' AS $function$
  SELECT jsonb_build_object(
           'id', m.message_id, 'transactionId', m.transaction_id, 'partitionId', p.id,
           'queuePath', q.name || '/' || p.name, 'queue', q.name, 'partition', p.name,
           'namespace', nullif(q.namespace, ''), 'task', nullif(q.task, ''),
           'payload', m.payload::jsonb, 'status', s.status, 'queueStatus', s.queue_status,
           'busStatus', jsonb_build_object('consumedBy', s.consumed_by, 'totalGroups', s.total_groups),
           'isEncrypted', m.is_encrypted, 'traceId', m.trace_id, 'producerSub', m.producer_sub,
           'createdAt', queen_internal.iso_millis(m.created_at),
           'errorMessage', dl.error_message, 'retryCount', dl.retry_count,
           'leaseExpiresAt', queen_internal.iso_millis(s.lease_expires_at),
           'queueConfig', jsonb_build_object('leaseTime', q.lease_time, 'retryLimit', q.retry_limit,
                                             'retryDelay', q.retry_delay_ms, 'ttl', q.ttl, 'priority', q.priority),
           'mode', queen_internal.partitions_mode(ARRAY[p.id]),
           'consumerGroups', coalesce((
             SELECT jsonb_agg(jsonb_build_object(
                      'name', c.consumer_group, 'consumed', c.cursor_seq >= m.seq,
                      'leaseExpiresAt', CASE WHEN queen_internal.message_group_state(c, m.seq, clock_timestamp()) = 'processing'
                                             THEN queen_internal.iso_millis(c.lease_expires_at) END)
                      ORDER BY c.consumer_group)
               FROM queen.consumers c WHERE c.partition_id = p.id), '[]'::jsonb))
    FROM queen.partitions p
    JOIN queen.queues q ON q.id = p.queue_id AND q.tenant = queen_internal.tenant_arg(p_tenant)
    CROSS JOIN LATERAL (SELECT queen_internal.message_seq(p.id, p_transaction_id) AS seq) k
    CROSS JOIN LATERAL queen_internal.segment_messages(p.id, k.seq - 1, 1) m
    CROSS JOIN LATERAL queen_internal.message_delivery(p.id, m.message_id, m.seq, clock_timestamp()) s
    LEFT JOIN LATERAL (SELECT d.error_message, d.retry_count FROM queen.dlq d WHERE d.message_id = m.message_id
                        ORDER BY d.failed_at DESC LIMIT 1) dl ON true
   WHERE p.id = p_partition_id AND m.seq = k.seq
$function$;

COMMENT ON FUNCTION queen.get_message(p_partition_id uuid, p_transaction_id text, p_tenant text) IS 'One message of tenant p_tenant with its payload as stored, delivery state (see message_delivery), latest DLQ error and retry count (null when not dead-lettered), queueConfig {leaseTime, retryLimit, retryDelay, ttl, priority}, mode and consumerGroups [{name, consumed, leaseExpiresAt}]; null when there is no such message.';
GRANT EXECUTE ON FUNCTION queen.get_message(p_partition_id uuid, p_transaction_id text, p_tenant text) TO queen_admin, queen_broker, queen_reader;
