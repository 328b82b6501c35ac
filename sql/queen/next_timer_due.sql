CREATE OR REPLACE FUNCTION queen.next_timer_due()
 RETURNS timestamp with time zone
 LANGUAGE sql STABLE SECURITY DEFINER SET search_path TO 'pg_catalog', 'queen', 'queen_internal', 'pg_temp' AS $function$
  -- An unclaimed timer is due at deliver_at; a claimed one can be claimed again
  -- (if its fire did not complete) when the claim expires, which is always after
  -- its deliver_at.
  SELECT least((SELECT min(t.deliver_at) FROM queen.timers t WHERE t.claim_expires_at IS NULL),
               (SELECT min(t.claim_expires_at) FROM queen.timers t WHERE t.claim_expires_at IS NOT NULL))
$function$;

COMMENT ON FUNCTION queen.next_timer_due() IS 'The earliest instant at which some timer can be claimed (deliver_at of unclaimed timers, claim_expires_at of claimed ones); null when there are no timers. The sweeper sleeps until then, capped by QUEEN_SWEEPER_MAX_SLEEP_MS.';
GRANT EXECUTE ON FUNCTION queen.next_timer_due() TO queen_admin, queen_broker, queen_reader;
