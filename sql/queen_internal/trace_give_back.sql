CREATE OR REPLACE FUNCTION queen_internal.trace_give_back()
 RETURNS trigger
 LANGUAGE plpgsql AS $function$
BEGIN
  PERFORM queen_internal.add_tenant_usage(OLD.tenant, p_traces => -1, p_trace_bytes => -OLD.counted_bytes, p_give_back => true);
  RETURN NULL;
END;
$function$;
