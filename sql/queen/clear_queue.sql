CREATE OR REPLACE FUNCTION queen.clear_queue(p_queue text, p_partition text, p_tenant text)
 RETURNS bigint
 LANGUAGE plpgsql SECURITY DEFINER SET search_path TO 'pg_catalog', 'queen', 'queen_internal', 'pg_temp' AS $function$
DECLARE
  v_queue_id uuid;
  v_partition_ids uuid[];
  v_deleted bigint;
BEGIN
  IF p_queue IS NULL OR p_queue = '' THEN
    RAISE EXCEPTION 'queue is required' USING ERRCODE = '22023';
  END IF;
  SELECT q.id INTO v_queue_id FROM queen.queues q WHERE q.tenant = queen_internal.tenant_arg(p_tenant) AND q.name = p_queue;
  IF v_queue_id IS NULL THEN
    RETURN NULL;
  END IF;
  -- the partition rows, from under concurrent pushes (push's lock order)
  SELECT array_agg(x.id) INTO v_partition_ids
    FROM (SELECT p.id FROM queen.partitions p
           WHERE p.queue_id = v_queue_id AND (p_partition IS NULL OR p.name = p_partition)
           ORDER BY p.id FOR UPDATE) x;
  IF v_partition_ids IS NULL THEN
    RETURN CASE WHEN p_partition IS NULL THEN 0 END;
  END IF;
  WITH gone AS (
    DELETE FROM queen.segments s WHERE s.partition_id = ANY (v_partition_ids)
    RETURNING (SELECT count(*) FROM unnest(s.payloads) x WHERE x IS NOT NULL) AS n
  )
  SELECT coalesce(sum(n), 0) INTO v_deleted FROM gone;
  DELETE FROM queen.message_traces t WHERE t.partition_id = ANY (v_partition_ids);
  UPDATE queen.partitions p SET removed_seq = p.last_seq WHERE p.id = ANY (v_partition_ids);
  DELETE FROM queen.dlq d WHERE d.partition_id = ANY (v_partition_ids);
  DELETE FROM queen.dedup_tombstones t WHERE t.partition_id = ANY (v_partition_ids);
  UPDATE queen.consumers c
     SET lease_id = NULL, lease_expires_at = NULL, lease_count = 0, lease_acked = 0, pending = true
   WHERE c.partition_id = ANY (v_partition_ids) AND c.lease_id IS NOT NULL;
  RETURN v_deleted;
END;
$function$;

COMMENT ON FUNCTION queen.clear_queue(p_queue text, p_partition text, p_tenant text) IS 'Deletes every message of queue p_queue of tenant p_tenant (only partition p_partition when given) with their traces, DLQ entries and dedup tombstones, and releases the leases of those partitions; the queue, its options, partitions and cursors stay. Returns the number of messages deleted, null when the queue or the named partition does not exist. 22023 on a missing queue name.';
GRANT EXECUTE ON FUNCTION queen.clear_queue(p_queue text, p_partition text, p_tenant text) TO queen_admin, queen_broker;
