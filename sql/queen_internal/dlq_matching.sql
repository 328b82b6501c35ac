CREATE OR REPLACE FUNCTION queen_internal.dlq_matching(p_tenant text, p_queue text, p_group text, p_partition text, p_from timestamp with time zone, p_to timestamp with time zone, p_message_id uuid)
 RETURNS TABLE(message_id uuid, consumer_group text, failed_at timestamp with time zone, queue_name text, partition_name text)
 LANGUAGE sql STABLE AS $function$
  SELECT d.message_id, d.consumer_group::text, d.failed_at, q.name::text, p.name::text
    FROM queen.dlq d
    JOIN queen.partitions p ON p.id = d.partition_id
    JOIN queen.queues q ON q.id = p.queue_id
   WHERE q.tenant = queen_internal.tenant_arg(p_tenant)
     AND (p_queue IS NULL OR q.name = p_queue)
     AND (p_group IS NULL OR d.consumer_group = p_group)
     AND (p_partition IS NULL OR p.name = p_partition)
     AND (p_from IS NULL OR d.failed_at >= p_from)
     AND (p_to IS NULL OR d.failed_at <= p_to)
     AND (p_message_id IS NULL OR d.message_id = p_message_id)
$function$;

COMMENT ON FUNCTION queen_internal.dlq_matching(p_tenant text, p_queue text, p_group text, p_partition text, p_from timestamp with time zone, p_to timestamp with time zone, p_message_id uuid) IS 'Internal to list_dlq and select_dead_letters: keys (with failure time, queue and partition name) of the DLQ entries of tenant p_tenant matching the filters (null = any).';
