CREATE OR REPLACE FUNCTION queen.set_subscription_start(p_group text, p_start_at timestamp with time zone, p_tenant text)
 RETURNS integer
 LANGUAGE plpgsql SECURITY DEFINER SET search_path TO 'pg_catalog', 'queen', 'queen_internal', 'pg_temp' AS $function$
DECLARE
  v_updated int;
BEGIN
  IF coalesce(p_group, '') = '' THEN
    RAISE EXCEPTION 'consumer group is required' USING ERRCODE = '22023';
  END IF;
  IF p_start_at IS NULL THEN
    RAISE EXCEPTION 'subscription timestamp is required' USING ERRCODE = '22023';
  END IF;
  UPDATE queen.subscriptions s
     SET start_at = p_start_at, mode = 'timestamp'
   WHERE s.consumer_group = p_group
     AND (s.queue_id IN (SELECT q.id FROM queen.queues q WHERE q.tenant = queen_internal.tenant_arg(p_tenant))
          OR (s.queue_id IS NULL AND s.tenant = queen_internal.tenant_arg(p_tenant)));
  GET DIAGNOSTICS v_updated = ROW_COUNT;
  RETURN v_updated;
END;
$function$;

COMMENT ON FUNCTION queen.set_subscription_start(p_group text, p_start_at timestamp with time zone, p_tenant text) IS 'POST /api/v1/consumer-groups/:group/subscription: every subscription record of group p_group in tenant p_tenant starts at p_start_at (mode timestamp). Only partitions the group has no cursor row on yet are affected. Returns the records updated. 22023 on an empty group or a null timestamp.';
GRANT EXECUTE ON FUNCTION queen.set_subscription_start(p_group text, p_start_at timestamp with time zone, p_tenant text) TO queen_admin, queen_broker;
