CREATE OR REPLACE FUNCTION queen.delete_dead_letters(p_queue text, p_group text, p_partition text, p_from timestamp with time zone, p_to timestamp with time zone, p_message_id uuid, p_tenant text)
 RETURNS integer
 LANGUAGE plpgsql SECURITY DEFINER SET search_path TO 'pg_catalog', 'queen', 'queen_internal', 'pg_temp' AS $function$
DECLARE
  v_deleted int;
BEGIN
  IF p_queue IS NULL AND p_message_id IS NULL THEN
    RAISE EXCEPTION 'queue is required' USING ERRCODE = '22023';
  END IF;
  DELETE FROM queen.dlq d
   USING queen_internal.select_dead_letters(p_queue, p_group, p_partition, p_from, p_to, p_message_id,
                                   queen_internal.dlq_admin_max_per_call(), p_tenant) k
   WHERE d.message_id = k.message_id AND d.consumer_group = k.consumer_group;
  GET DIAGNOSTICS v_deleted = ROW_COUNT;
  RETURN v_deleted;
END;
$function$;

COMMENT ON FUNCTION queen.delete_dead_letters(p_queue text, p_group text, p_partition text, p_from timestamp with time zone, p_to timestamp with time zone, p_message_id uuid, p_tenant text) IS 'Deletes up to dlq_admin_max_per_call() DLQ entries of tenant p_tenant matching the filters (as requeue_dead_letters; the messages themselves stay), oldest failure first; returns how many. 22023 without queue and message id.';
GRANT EXECUTE ON FUNCTION queen.delete_dead_letters(p_queue text, p_group text, p_partition text, p_from timestamp with time zone, p_to timestamp with time zone, p_message_id uuid, p_tenant text) TO queen_admin, queen_broker;
