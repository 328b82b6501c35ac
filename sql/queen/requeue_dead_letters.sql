CREATE OR REPLACE FUNCTION queen.requeue_dead_letters(p_queue text, p_group text, p_partition text, p_from timestamp with time zone, p_to timestamp with time zone, p_message_id uuid, p_tenant text)
 RETURNS jsonb
 LANGUAGE plpgsql SECURITY DEFINER SET search_path TO 'pg_catalog', 'queen', 'queen_internal', 'pg_temp' AS $function$
DECLARE
  v_tenant text := queen_internal.tenant_arg(p_tenant);
  v_key_messages uuid[];
  v_key_groups text[];
  v_sub record;
  v_stored_messages uuid[] := '{}';
  v_queues text[] := '{}';
  v_requeued int;
BEGIN
  IF p_queue IS NULL AND p_message_id IS NULL THEN
    RAISE EXCEPTION 'queue is required' USING ERRCODE = '22023';
  END IF;
  SELECT coalesce(array_agg(k.message_id), '{}'), coalesce(array_agg(k.consumer_group), '{}')
    INTO v_key_messages, v_key_groups
    FROM queen_internal.select_dead_letters(p_queue, p_group, p_partition, p_from, p_to, p_message_id,
                                   queen_internal.dlq_admin_max_per_call(), v_tenant) k;
  -- one store_messages call per producer (the producer is per call)
  FOR v_sub IN
    SELECT x.producer_sub,
           jsonb_agg(jsonb_build_object('queue', x.queue_name, 'partition', x.partition_name, 'payload', x.payload,
                                        'transactionId', queen_internal.requeued_transaction_id(x.transaction_id, x.message_id),
                                        'traceId', x.trace_id, 'encrypted', x.is_encrypted) ORDER BY x.failed_at, x.message_id) AS items,
           array_agg(x.message_id ORDER BY x.failed_at, x.message_id) AS message_ids
      FROM (SELECT DISTINCT ON (d.message_id) d.message_id, d.transaction_id, pl.payload, d.trace_id, d.is_encrypted,
                   d.producer_sub, d.failed_at, q.name::text AS queue_name, p.name::text AS partition_name
              FROM queen.dlq d
              JOIN unnest(v_key_messages, v_key_groups) k(message_id, consumer_group)
                ON k.message_id = d.message_id AND k.consumer_group = d.consumer_group
              LEFT JOIN queen.dlq_payloads pl ON pl.message_id = d.message_id
              JOIN queen.partitions p ON p.id = d.partition_id
              JOIN queen.queues q ON q.id = p.queue_id
             ORDER BY d.message_id, d.failed_at) x
     GROUP BY x.producer_sub
  LOOP
    SELECT v_stored_messages || coalesce(array_agg(v_sub.message_ids[r.idx + 1]), '{}'),
           v_queues || coalesce(array_agg(DISTINCT r.queue_name) FILTER (WHERE r.status = 'queued'), '{}')
      INTO v_stored_messages, v_queues
      FROM queen_internal.store_messages(v_sub.items, v_sub.producer_sub, NULL, v_tenant) r
     WHERE r.status IN ('queued', 'duplicate');
  END LOOP;
  DELETE FROM queen.dlq d USING unnest(v_key_messages, v_key_groups) k(message_id, consumer_group)
   WHERE d.message_id = k.message_id AND d.consumer_group = k.consumer_group AND d.message_id = ANY (v_stored_messages);
  GET DIAGNOSTICS v_requeued = ROW_COUNT;
  RETURN jsonb_build_object('requeued', v_requeued,
                            'queues', (SELECT coalesce(jsonb_agg(DISTINCT n), '[]'::jsonb) FROM unnest(v_queues) n));
END;
$function$;

COMMENT ON FUNCTION queen.requeue_dead_letters(p_queue text, p_group text, p_partition text, p_from timestamp with time zone, p_to timestamp with time zone, p_message_id uuid, p_tenant text) IS 'Requeues up to dlq_admin_max_per_call() DLQ entries of tenant p_tenant matching the filters (queue, group, partition, failed_at window, message id; null = any; queue or message id required), oldest failure first: one new message per dead message in its partition (payload, trace id and producer copied, transactionId requeued_transaction_id()), seen by every group that reads the partition; the entries whose copy was stored (or already existed) are deleted. Returns {"requeued": entries removed, "queues": [queues that received a new message]}. 22023 without queue and message id.';
GRANT EXECUTE ON FUNCTION queen.requeue_dead_letters(p_queue text, p_group text, p_partition text, p_from timestamp with time zone, p_to timestamp with time zone, p_message_id uuid, p_tenant text) TO queen_admin, queen_broker;
