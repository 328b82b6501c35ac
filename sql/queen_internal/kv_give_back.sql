CREATE OR REPLACE FUNCTION queen_internal.kv_give_back()
 RETURNS trigger
 LANGUAGE plpgsql AS $function$
DECLARE
  r record;
BEGIN
  FOR r IN SELECT o.tenant, count(*) AS keys, sum(o.counted_bytes)::bigint AS bytes
             FROM old_rows o GROUP BY o.tenant ORDER BY o.tenant LOOP
    PERFORM queen_internal.add_tenant_usage(r.tenant, p_kv_keys => -r.keys, p_kv_bytes => -r.bytes, p_give_back => true);
  END LOOP;
  RETURN NULL;
END;
$function$;
