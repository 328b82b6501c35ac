CREATE OR REPLACE FUNCTION queen.kv_prune_expired(p_limit integer, p_now timestamp with time zone DEFAULT NULL::timestamp with time zone)
 RETURNS integer
 LANGUAGE plpgsql SECURITY DEFINER SET search_path TO 'pg_catalog', 'queen', 'queen_internal', 'pg_temp' AS $function$
DECLARE
  v_deleted int;
BEGIN
  PERFORM queen_internal.check_at_least('kv_prune_expired limit', p_limit, 1);
  -- SKIP LOCKED: every broker prunes in parallel without waiting on the others.
  WITH expired AS (
    SELECT k.tenant, k.key
      FROM queen.kv k
     WHERE k.expires_at <= coalesce(p_now, clock_timestamp())
     ORDER BY k.expires_at
     LIMIT p_limit
       FOR UPDATE SKIP LOCKED
  )
  DELETE FROM queen.kv k USING expired e WHERE k.tenant = e.tenant AND k.key = e.key;
  GET DIAGNOSTICS v_deleted = ROW_COUNT;
  RETURN v_deleted;
END;
$function$;

COMMENT ON FUNCTION queen.kv_prune_expired(p_limit integer, p_now timestamp with time zone) IS 'Deletes at most p_limit KV rows expired at p_now (null = clock_timestamp()), oldest expiry first, rows locked by another pruner skipped. Returns the number deleted. 22023 when p_limit < 1.';
GRANT EXECUTE ON FUNCTION queen.kv_prune_expired(p_limit integer, p_now timestamp with time zone) TO queen_admin, queen_broker;
