CREATE OR REPLACE FUNCTION queen.seek_consumer_group(p_group text, p_queue text, p_to_end boolean, p_at timestamp with time zone, p_tenant text)
 RETURNS integer
 LANGUAGE plpgsql SECURITY DEFINER SET search_path TO 'pg_catalog', 'queen', 'queen_internal', 'pg_temp' AS $function$
DECLARE
  v_queue_id uuid;
BEGIN
  IF coalesce(p_group, '') = '' OR coalesce(p_queue, '') = '' THEN
    RAISE EXCEPTION 'consumer group and queue are required' USING ERRCODE = '22023';
  END IF;
  IF NOT coalesce(p_to_end, false) AND p_at IS NULL THEN
    RAISE EXCEPTION 'Must specify either ''toEnd'': true or ''timestamp''' USING ERRCODE = '22023';
  END IF;
  SELECT q.id INTO v_queue_id FROM queen.queues q WHERE q.tenant = queen_internal.tenant_arg(p_tenant) AND q.name = p_queue;
  IF v_queue_id IS NULL THEN
    RETURN 0;
  END IF;
  RETURN queen_internal.move_cursors(p_group,
                            ARRAY(SELECT c.partition_id FROM queen.consumers c
                                   WHERE c.queue_id = v_queue_id AND c.consumer_group = p_group),
                            coalesce(p_to_end, false), p_at);
END;
$function$;

COMMENT ON FUNCTION queen.seek_consumer_group(p_group text, p_queue text, p_to_end boolean, p_at timestamp with time zone, p_tenant text) IS 'POST /api/v1/consumer-groups/:group/queues/:queue/seek: on every partition of queue p_queue (tenant p_tenant) where group p_group has a cursor row, puts the cursor at the newest message (p_to_end) or on the last message created at or before p_at (nothing consumed when there is none), dropping leases, in one transaction. The next pop sees re-exposed messages. Returns the partitions moved (0 for an unknown queue or group). 22023 on a missing group/queue or neither p_to_end nor p_at.';
GRANT EXECUTE ON FUNCTION queen.seek_consumer_group(p_group text, p_queue text, p_to_end boolean, p_at timestamp with time zone, p_tenant text) TO queen_admin, queen_broker;
