CREATE OR REPLACE FUNCTION queen.encrypted_queue_names()
 RETURNS TABLE(tenant text, queue_name text)
 LANGUAGE sql STABLE SECURITY DEFINER SET search_path TO 'pg_catalog', 'queen', 'queen_internal', 'pg_temp' AS $function$
  SELECT q.tenant::text, q.name::text FROM queen.queues q WHERE q.encryption_enabled ORDER BY q.tenant, q.name
$function$;

COMMENT ON FUNCTION queen.encrypted_queue_names() IS 'The queues of every tenant configured with encryptionEnabled, as (tenant, queue_name) ('''' = the default tenant); the brokers refresh their list from it.';
GRANT EXECUTE ON FUNCTION queen.encrypted_queue_names() TO queen_admin, queen_broker, queen_reader;
