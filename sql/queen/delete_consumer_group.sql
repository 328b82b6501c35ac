CREATE OR REPLACE FUNCTION queen.delete_consumer_group(p_group text, p_queue text, p_delete_metadata boolean, p_tenant text)
 RETURNS integer
 LANGUAGE plpgsql SECURITY DEFINER SET search_path TO 'pg_catalog', 'queen', 'queen_internal', 'pg_temp' AS $function$
DECLARE
  v_queue_ids uuid[];
  v_deleted int;
BEGIN
  IF coalesce(p_group, '') = '' THEN
    RAISE EXCEPTION 'consumer group is required' USING ERRCODE = '22023';
  END IF;
  IF p_queue = '' THEN
    RAISE EXCEPTION 'queue must not be empty' USING ERRCODE = '22023';
  END IF;
  v_queue_ids := ARRAY(SELECT q.id FROM queen.queues q
                        WHERE q.tenant = queen_internal.tenant_arg(p_tenant) AND (p_queue IS NULL OR q.name = p_queue));
  PERFORM queen_internal.lock_group_queues(v_queue_ids, p_group);
  -- The cursor rows and the registry go together: a registered group without cursor
  -- rows would never be offered a partition. The next pop by this name registers it
  -- again, at the start point its subscription (or the pop's parameters) gives.
  DELETE FROM queen.consumers c WHERE c.queue_id = ANY (v_queue_ids) AND c.consumer_group = p_group;
  GET DIAGNOSTICS v_deleted = ROW_COUNT;
  DELETE FROM queen.consumer_groups g WHERE g.queue_id = ANY (v_queue_ids) AND g.consumer_group = p_group;
  IF coalesce(p_delete_metadata, true) THEN
    DELETE FROM queen.subscriptions s
     WHERE s.consumer_group = p_group
       AND (s.queue_id = ANY (v_queue_ids)
            OR (p_queue IS NULL AND s.queue_id IS NULL AND s.tenant = queen_internal.tenant_arg(p_tenant)));
  END IF;
  RETURN v_deleted;
END;
$function$;

COMMENT ON FUNCTION queen.delete_consumer_group(p_group text, p_queue text, p_delete_metadata boolean, p_tenant text) IS 'Removes group p_group from queue p_queue (null = every queue) of tenant p_tenant: its cursor rows (and so its leases) and its registration; with p_delete_metadata also its subscription records (with p_queue null, its namespace/task records of the tenant too). Returns the number of cursor rows removed (0 for an unknown group or queue). 22023 on an empty group or queue name.';
GRANT EXECUTE ON FUNCTION queen.delete_consumer_group(p_group text, p_queue text, p_delete_metadata boolean, p_tenant text) TO queen_admin, queen_broker;
