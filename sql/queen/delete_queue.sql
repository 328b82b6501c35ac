CREATE OR REPLACE FUNCTION queen.delete_queue(p_queue text, p_tenant text)
 RETURNS boolean
 LANGUAGE plpgsql SECURITY DEFINER SET search_path TO 'pg_catalog', 'queen', 'queen_internal', 'pg_temp' AS $function$
DECLARE
  v_queue_id uuid;
  v_partition_ids uuid[];
BEGIN
  IF p_queue IS NULL OR p_queue = '' THEN
    RAISE EXCEPTION 'queue is required' USING ERRCODE = '22023';
  END IF;
  SELECT q.id INTO v_queue_id FROM queen.queues q
   WHERE q.tenant = queen_internal.tenant_arg(p_tenant) AND q.name = p_queue FOR UPDATE;
  IF v_queue_id IS NULL THEN
    RETURN false;
  END IF;
  -- take the partitions from under concurrent pushes (same lock order as push)
  SELECT array_agg(x.id) INTO v_partition_ids
    FROM (SELECT p.id FROM queen.partitions p WHERE p.queue_id = v_queue_id ORDER BY p.id FOR UPDATE) x;
  -- segments, traces and tombstones have no foreign key (hot path): delete them explicitly
  DELETE FROM queen.segments s WHERE s.partition_id = ANY (v_partition_ids);
  DELETE FROM queen.message_traces t WHERE t.partition_id = ANY (v_partition_ids);
  DELETE FROM queen.dedup_tombstones t WHERE t.partition_id = ANY (v_partition_ids);
  -- partitions, cursors/leases, dead letters and subscription records cascade
  DELETE FROM queen.queues q WHERE q.id = v_queue_id;
  RETURN true;
END;
$function$;

COMMENT ON FUNCTION queen.delete_queue(p_queue text, p_tenant text) IS 'Deletes queue p_queue of tenant p_tenant ('''' = default) with its partitions, messages, dedup tombstones, cursors/leases, dead letters and subscription records. Returns false when the queue does not exist. 22023 on a missing name.';
GRANT EXECUTE ON FUNCTION queen.delete_queue(p_queue text, p_tenant text) TO queen_admin, queen_broker;
