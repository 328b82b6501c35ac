CREATE OR REPLACE FUNCTION queen.retry_dead_message(p_partition_id uuid, p_transaction_id text, p_tenant text)
 RETURNS jsonb
 LANGUAGE plpgsql SECURITY DEFINER SET search_path TO 'pg_catalog', 'queen', 'queen_internal', 'pg_temp' AS $function$
DECLARE
  v_message_id uuid;
  v_result jsonb;
BEGIN
  SELECT d.message_id INTO v_message_id
    FROM queen.dlq d
    JOIN queen.partitions p ON p.id = d.partition_id
    JOIN queen.queues q ON q.id = p.queue_id AND q.tenant = queen_internal.tenant_arg(p_tenant)
   WHERE d.partition_id = p_partition_id AND d.transaction_id = p_transaction_id
   LIMIT 1;
  IF v_message_id IS NULL THEN
    RETURN NULL;
  END IF;
  v_result := queen.requeue_dead_letters(p_message_id => v_message_id, p_tenant => p_tenant, p_queue => NULL, p_group => NULL, p_partition => NULL, p_from => NULL, p_to => NULL);
  IF (v_result ->> 'requeued')::int = 0 THEN
    RAISE EXCEPTION 'the requeued copy was refused (queue full: maxSize reached)' USING ERRCODE = '22023';
  END IF;
  RETURN jsonb_build_object('messageId', (SELECT m.message_id
                                            FROM queen_internal.segment_messages(
                                                   p_partition_id,
                                                   queen_internal.message_seq(p_partition_id,
                                                     queen_internal.requeued_transaction_id(p_transaction_id, v_message_id)) - 1, 1) m),
                            'queues', v_result -> 'queues');
END;
$function$;

COMMENT ON FUNCTION queen.retry_dead_message(p_partition_id uuid, p_transaction_id text, p_tenant text) IS 'Requeues (requeue_dead_letters) every DLQ entry of the message (p_partition_id, p_transaction_id) of tenant p_tenant; returns {"messageId": the new message''s id, "queues": [...]}, null when the message has no DLQ entry. 22023 when maxSize refuses the copy.';
GRANT EXECUTE ON FUNCTION queen.retry_dead_message(p_partition_id uuid, p_transaction_id text, p_tenant text) TO queen_admin, queen_broker;
