CREATE OR REPLACE FUNCTION queen_internal.count_growth()
 RETURNS trigger
 LANGUAGE plpgsql AS $function$
DECLARE
  v_tenant text;
BEGIN
  CASE TG_TABLE_NAME
    WHEN 'kv' THEN
      IF TG_OP = 'INSERT' THEN
        PERFORM queen_internal.add_tenant_usage(NEW.tenant, p_kv_keys => 1, p_kv_bytes => NEW.counted_bytes);
      ELSE
        PERFORM queen_internal.add_tenant_usage(NEW.tenant, p_kv_bytes => NEW.counted_bytes - OLD.counted_bytes);
      END IF;
    WHEN 'message_traces' THEN
      IF TG_OP = 'INSERT' THEN
        PERFORM queen_internal.add_tenant_usage(NEW.tenant, p_traces => 1, p_trace_bytes => NEW.counted_bytes);
      ELSE
        PERFORM queen_internal.add_tenant_usage(NEW.tenant, p_trace_bytes => NEW.counted_bytes - OLD.counted_bytes);
      END IF;
    WHEN 'queues' THEN
      PERFORM queen_internal.add_tenant_usage(NEW.tenant, p_queues => 1);
    ELSE
      -- partitions, consumer_groups: their queue's tenant.
      SELECT q.tenant INTO v_tenant FROM queen.queues q WHERE q.id = NEW.queue_id;
      IF FOUND AND TG_TABLE_NAME = 'partitions' THEN
        PERFORM queen_internal.add_tenant_usage(v_tenant, p_partitions => 1);
      ELSIF FOUND THEN
        PERFORM queen_internal.add_tenant_usage(v_tenant, p_consumer_groups => 1);
      END IF;
  END CASE;
  RETURN NULL;
END;
$function$;
