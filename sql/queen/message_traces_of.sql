CREATE OR REPLACE FUNCTION queen.message_traces_of(p_partition_id uuid, p_transaction_id text, p_tenant text)
 RETURNS jsonb
 LANGUAGE sql STABLE SECURITY DEFINER SET search_path TO 'pg_catalog', 'queen', 'queen_internal', 'pg_temp' AS $function$
  SELECT jsonb_build_object('traces', coalesce(jsonb_agg(jsonb_build_object(
           'id', t.id, 'event_type', t.event_type, 'data', t.data, 'consumer_group', t.consumer_group,
           'worker_id', t.worker_id, 'created_at', queen_internal.iso_millis(t.created_at), 'trace_names', to_jsonb(t.trace_names))
           ORDER BY t.created_at, t.id), '[]'::jsonb))
    FROM queen.message_traces t
   WHERE t.partition_id = p_partition_id AND t.transaction_id = p_transaction_id
     AND t.tenant = queen_internal.tenant_arg(p_tenant)
$function$;

COMMENT ON FUNCTION queen.message_traces_of(p_partition_id uuid, p_transaction_id text, p_tenant text) IS 'The traces of one message of tenant p_tenant as {"traces": [{id, event_type, data, consumer_group, worker_id, created_at, trace_names}]}, oldest first; an unknown message has none.';
GRANT EXECUTE ON FUNCTION queen.message_traces_of(p_partition_id uuid, p_transaction_id text, p_tenant text) TO queen_admin, queen_broker, queen_reader;
