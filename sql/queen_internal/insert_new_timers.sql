CREATE OR REPLACE FUNCTION queen_internal.insert_new_timers(p_items queen.schedule_item[], p_tenant text, p_producer_sub text)
 RETURNS void
 LANGUAGE plpgsql AS $function$
BEGIN
  INSERT INTO queen.timers (tenant, queue_name, partition_name, namespace, task, message_id, transaction_id,
                            payload, trace_id, producer_sub, is_encrypted, deliver_at)
  SELECT p_tenant, s.queue_name, s.partition_name, s.namespace, s.task, s.new_message_id, s.transaction_id,
         s.payload, s.trace_id, p_producer_sub, s.is_encrypted, s.deliver_at
    FROM unnest(p_items) s
    LEFT JOIN queen.queues q ON q.tenant = p_tenant AND q.name = s.queue_name
    LEFT JOIN queen.partitions p ON p.queue_id = q.id AND p.name = s.partition_name
   WHERE s.occurrence = 1 AND NOT s.refused
     AND NOT EXISTS (SELECT 1 FROM queen_internal.segment_duplicates(p.id, ARRAY[s.transaction_id], NULL,
                                                            clock_timestamp() - queen_internal.dedup_window(NULL)))
   ORDER BY s.idx
  ON CONFLICT ON CONSTRAINT timers_queue_partition_transaction_key DO NOTHING;
END;
$function$;

COMMENT ON FUNCTION queen_internal.insert_new_timers(p_items queen.schedule_item[], p_tenant text, p_producer_sub text) IS 'Internal to schedule_messages: inserts the timers of the items whose key is new (not a pending timer or a message stored within the dedup window in tenant p_tenant''s partition, nor an earlier item of the call).';
