CREATE OR REPLACE FUNCTION queen_internal.queue_give_back()
 RETURNS trigger
 LANGUAGE plpgsql AS $function$
BEGIN
  PERFORM queen_internal.add_tenant_usage(OLD.tenant, p_queues => -1,
            p_partitions => -(SELECT count(*) FROM queen.partitions p WHERE p.queue_id = OLD.id),
            p_consumer_groups => -(SELECT count(*) FROM queen.consumer_groups g WHERE g.queue_id = OLD.id),
            p_give_back => true);
  RETURN OLD;
END;
$function$;
