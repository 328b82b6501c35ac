CREATE OR REPLACE FUNCTION queen.claim_due_timers(p_server_id text, p_limit integer, p_lease_ms integer, p_now timestamp with time zone DEFAULT NULL::timestamp with time zone)
 RETURNS SETOF bigint
 LANGUAGE plpgsql SECURITY DEFINER SET search_path TO 'pg_catalog', 'queen', 'queen_internal', 'pg_temp' AS $function$
DECLARE
  v_now timestamptz := coalesce(p_now, clock_timestamp());
BEGIN
  IF p_server_id IS NULL OR p_server_id = '' THEN
    RAISE EXCEPTION 'server id is required' USING ERRCODE = '22023';
  END IF;
  PERFORM queen_internal.check_at_least('claim limit', p_limit, 1);
  PERFORM queen_internal.check_at_least('claim lease ms', p_lease_ms, 1);
  -- Due and not held by a live claim; rows another broker is claiming or firing
  -- right now are skipped, not waited for.
  RETURN QUERY
  WITH due AS (
    SELECT t.id
      FROM queen.timers t
     WHERE t.deliver_at <= v_now
       AND (t.claim_expires_at IS NULL OR t.claim_expires_at <= v_now)
     ORDER BY t.deliver_at, t.id
     LIMIT p_limit
       FOR UPDATE SKIP LOCKED
  )
  UPDATE queen.timers t
     SET claimed_by = p_server_id,
         claim_expires_at = v_now + p_lease_ms * interval '1 millisecond'
    FROM due
   WHERE t.id = due.id
  RETURNING t.id;
END;
$function$;

COMMENT ON FUNCTION queen.claim_due_timers(p_server_id text, p_limit integer, p_lease_ms integer, p_now timestamp with time zone) IS 'Claims up to p_limit due timers (deliver_at passed, no live claim) for p_server_id for p_lease_ms, skipping rows locked by other brokers; returns their ids in delivery order. Call it in its own transaction so the claim is visible to others. p_now: the instant to claim at (null = clock_timestamp()). 22023 on an empty server id, limit < 1 or lease < 1 ms.';
GRANT EXECUTE ON FUNCTION queen.claim_due_timers(p_server_id text, p_limit integer, p_lease_ms integer, p_now timestamp with time zone) TO queen_admin, queen_broker;
