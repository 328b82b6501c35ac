CREATE OR REPLACE FUNCTION queen.dead_letter_message(p_partition_id uuid, p_transaction_id text, p_group text, p_error text, p_tenant text)
 RETURNS boolean
 LANGUAGE plpgsql SECURITY DEFINER SET search_path TO 'pg_catalog', 'queen', 'queen_internal', 'pg_temp' AS $function$
DECLARE
  v_seq bigint;
BEGIN
  IF queen_internal.name_problem(p_group) IS NOT NULL THEN
    RAISE EXCEPTION 'consumerGroup %', queen_internal.name_problem(p_group) USING ERRCODE = '22023';
  END IF;
  SELECT queen_internal.message_seq(p.id, p_transaction_id) INTO v_seq
    FROM queen.partitions p
    JOIN queen.queues q ON q.id = p.queue_id AND q.tenant = queen_internal.tenant_arg(p_tenant)
   WHERE p.id = p_partition_id;
  IF v_seq IS NULL THEN
    RETURN false;
  END IF;
  PERFORM queen_internal.dead_letter(p_partition_id, v_seq, coalesce(p_group, queen_internal.queue_mode_group()),
                            coalesce(p_error, 'Moved to the DLQ by an operator'), 0);
  RETURN true;
END;
$function$;

COMMENT ON FUNCTION queen.dead_letter_message(p_partition_id uuid, p_transaction_id text, p_group text, p_error text, p_tenant text) IS 'Records a DLQ entry for the message (p_partition_id, p_transaction_id) of tenant p_tenant and group p_group (default __QUEUE_MODE__) with error p_error and retry count 0; the cursor does not move. False when there is no such message. 22023 on an invalid group name.';
GRANT EXECUTE ON FUNCTION queen.dead_letter_message(p_partition_id uuid, p_transaction_id text, p_group text, p_error text, p_tenant text) TO queen_admin, queen_broker;
