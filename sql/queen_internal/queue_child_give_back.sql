CREATE OR REPLACE FUNCTION queen_internal.queue_child_give_back()
 RETURNS trigger
 LANGUAGE plpgsql AS $function$
DECLARE
  r record;
BEGIN
  FOR r IN SELECT q.tenant, count(*) AS n FROM old_rows c JOIN queen.queues q ON q.id = c.queue_id
            GROUP BY q.tenant ORDER BY q.tenant LOOP
    IF TG_TABLE_NAME = 'partitions' THEN
      PERFORM queen_internal.add_tenant_usage(r.tenant, p_partitions => -r.n, p_give_back => true);
    ELSE
      PERFORM queen_internal.add_tenant_usage(r.tenant, p_consumer_groups => -r.n, p_give_back => true);
    END IF;
  END LOOP;
  RETURN NULL;
END;
$function$;
