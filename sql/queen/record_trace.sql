CREATE OR REPLACE FUNCTION queen.record_trace(p_partition_id uuid, p_transaction_id text, p_data jsonb, p_trace_names text[], p_event_type text, p_consumer_group text, p_worker_id text, p_tenant text)
 RETURNS uuid
 LANGUAGE plpgsql SECURITY DEFINER SET search_path TO 'pg_catalog', 'queen', 'queen_internal', 'pg_temp' AS $function$
DECLARE
  v_names text[] := coalesce(p_trace_names, '{}');
  v_id uuid;
BEGIN
  IF p_partition_id IS NULL OR p_transaction_id IS NULL OR p_transaction_id = '' THEN
    RAISE EXCEPTION 'transactionId and partitionId are required' USING ERRCODE = '22023';
  END IF;
  IF p_data IS NULL THEN
    RAISE EXCEPTION 'data is required' USING ERRCODE = '22023';
  END IF;
  IF octet_length(p_data::text) > queen_internal.trace_max_data_bytes() THEN
    RAISE EXCEPTION 'trace data is larger than % bytes', queen_internal.trace_max_data_bytes() USING ERRCODE = '22023';
  END IF;
  IF cardinality(v_names) > queen_internal.trace_max_names() THEN
    RAISE EXCEPTION 'more than % trace names', queen_internal.trace_max_names() USING ERRCODE = '22023';
  END IF;
  IF EXISTS (SELECT 1 FROM unnest(v_names) n WHERE n IS NULL OR queen_internal.name_problem(n) IS NOT NULL) THEN
    RAISE EXCEPTION 'trace names must be 1 to % characters', queen_internal.name_max_chars() USING ERRCODE = '22023';
  END IF;
  IF queen_internal.name_problem(p_event_type) IS NOT NULL OR queen_internal.name_problem(p_consumer_group) IS NOT NULL
     OR length(p_worker_id) > queen_internal.name_max_chars() THEN
    RAISE EXCEPTION 'eventType, consumerGroup and workerId must be 1 to % characters', queen_internal.name_max_chars()
      USING ERRCODE = '22023';
  END IF;
  INSERT INTO queen.message_traces (partition_id, transaction_id, tenant, consumer_group, event_type, data,
                                    trace_names, worker_id)
  SELECT p.id, p_transaction_id, q.tenant, coalesce(p_consumer_group, queen_internal.queue_mode_group()),
         coalesce(p_event_type, 'info'), p_data, ARRAY(SELECT DISTINCT n FROM unnest(v_names) n ORDER BY n), p_worker_id
    FROM queen.partitions p
    JOIN queen.queues q ON q.id = p.queue_id AND q.tenant = queen_internal.tenant_arg(p_tenant)
   WHERE p.id = p_partition_id AND queen_internal.message_seq(p.id, p_transaction_id) IS NOT NULL
  RETURNING id INTO v_id;
  RETURN v_id;
END;
$function$;

COMMENT ON FUNCTION queen.record_trace(p_partition_id uuid, p_transaction_id text, p_data jsonb, p_trace_names text[], p_event_type text, p_consumer_group text, p_worker_id text, p_tenant text) IS 'Records a trace against the message (p_partition_id, p_transaction_id) of tenant p_tenant; returns the trace id, null when the tenant has no such message. Names are deduplicated. 22023 on a missing key or data, data over trace_max_data_bytes(), more than trace_max_names() names, or a name/eventType/consumerGroup that is not a name.';
GRANT EXECUTE ON FUNCTION queen.record_trace(p_partition_id uuid, p_transaction_id text, p_data jsonb, p_trace_names text[], p_event_type text, p_consumer_group text, p_worker_id text, p_tenant text) TO queen_admin, queen_broker;
