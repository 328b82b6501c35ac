CREATE OR REPLACE FUNCTION queen.pop_many(p_requests integer, p_queue text, p_partition text, p_group text, p_batch integer, p_partitions integer, p_auto_ack boolean, p_subscription_mode text, p_subscription_from text, p_namespace text, p_task text, p_tenant text, p_now timestamp with time zone DEFAULT NULL::timestamp with time zone)
 RETURNS TABLE(request_idx integer, lease_id uuid, queue_name text, partition_name text, partition_id uuid, message_id uuid, transaction_id text, trace_id uuid, payload text, producer_sub text, is_encrypted boolean, created_at timestamp with time zone, retry_count integer)
 LANGUAGE plpgsql SECURITY DEFINER SET search_path TO 'pg_catalog', 'queen', 'queen_internal', 'pg_temp' SET plan_cache_mode TO 'force_generic_plan' SET enable_seqscan TO 'off' SET jit TO 'off' AS $function$
#variable_conflict use_column
DECLARE
  v_max_requests CONSTANT int := 1000;
BEGIN
  IF p_requests IS NULL OR p_requests < 1 OR p_requests > v_max_requests THEN
    RAISE EXCEPTION 'requests must be between 1 and % (got %)', v_max_requests, coalesce(p_requests::text, 'null')
      USING ERRCODE = '22023';
  END IF;
  FOR i IN 0 .. p_requests - 1 LOOP
    RETURN QUERY
    SELECT i, m.lease_id, m.queue_name, m.partition_name, m.partition_id, m.message_id, m.transaction_id,
           m.trace_id, m.payload, m.producer_sub, m.is_encrypted, m.created_at, m.retry_count
      FROM queen.pop_messages(p_queue, p_partition, p_group, p_batch, p_partitions, p_auto_ack,
                              p_subscription_mode, p_subscription_from, p_namespace, p_task, p_tenant, p_now) m;
    -- Nothing claimable: the next call, with the same parameters, would find nothing either.
    EXIT WHEN NOT FOUND;
  END LOOP;
END;
$function$;

COMMENT ON FUNCTION queen.pop_many(p_requests integer, p_queue text, p_partition text, p_group text, p_batch integer, p_partitions integer, p_auto_ack boolean, p_subscription_mode text, p_subscription_from text, p_namespace text, p_task text, p_tenant text, p_now timestamp with time zone) IS 'Pop combining: calls pop_messages p_requests times (1..1000) with the same parameters in one transaction and returns its rows with request_idx (0-based), each call with its own lease id and partitions; stops at the first call that finds nothing.';
GRANT EXECUTE ON FUNCTION queen.pop_many(p_requests integer, p_queue text, p_partition text, p_group text, p_batch integer, p_partitions integer, p_auto_ack boolean, p_subscription_mode text, p_subscription_from text, p_namespace text, p_task text, p_tenant text, p_now timestamp with time zone) TO queen_admin, queen_broker;
