CREATE OR REPLACE FUNCTION queen.fire_timers(p_server_id text, p_ids bigint[], p_now timestamp with time zone DEFAULT NULL::timestamp with time zone)
 RETURNS integer
 LANGUAGE plpgsql SECURITY DEFINER SET search_path TO 'pg_catalog', 'queen', 'queen_internal', 'pg_temp' AS $function$
DECLARE
  v_now   timestamptz := coalesce(p_now, clock_timestamp());
  v_held  bigint[];
  v_group record;
  v_fired int := 0;
  v_error text;
BEGIN
  IF p_server_id IS NULL OR p_server_id = '' THEN
    RAISE EXCEPTION 'server id is required' USING ERRCODE = '22023';
  END IF;
  IF p_ids IS NULL OR cardinality(p_ids) = 0 THEN
    RETURN 0;
  END IF;

  -- Only rows whose claim this broker still holds. FOR UPDATE (no SKIP LOCKED):
  -- if another broker is re-claiming a row whose claim expired, wait for it and
  -- re-check, so the row drops out here because it is no longer ours. Once
  -- locked, nobody can claim the rows until this transaction ends.
  SELECT array_agg(l.id) INTO v_held
    FROM (SELECT t.id
            FROM queen.timers t
           WHERE t.id = ANY (p_ids)
             AND t.claimed_by = p_server_id
             AND t.claim_expires_at > v_now
           ORDER BY t.id
             FOR UPDATE) l;
  IF v_held IS NULL THEN
    RETURN 0;
  END IF;

  -- store_messages takes one tenant and one producer per call.
  FOR v_group IN
    SELECT t.tenant, t.producer_sub, array_agg(t.id) AS ids
      FROM queen.timers t
     WHERE t.id = ANY (v_held)
     GROUP BY t.tenant, t.producer_sub
  LOOP
    BEGIN
      v_fired := v_fired + queen_internal.fire_locked_timers(v_group.ids, v_group.producer_sub, v_group.tenant);
    EXCEPTION WHEN OTHERS THEN
      -- One timer the store rejects must not hold back the others forever (they
      -- would be claimed together again): retry them one by one, and leave the
      -- failing ones claimed, with the error, until their claim expires.
      GET STACKED DIAGNOSTICS v_error = MESSAGE_TEXT;
      RAISE WARNING 'fire_timers: batch push failed (%), firing one by one', v_error;
      DECLARE
        v_id bigint;
      BEGIN
        FOREACH v_id IN ARRAY v_group.ids LOOP
          BEGIN
            v_fired := v_fired + queen_internal.fire_locked_timers(ARRAY[v_id], v_group.producer_sub, v_group.tenant);
          EXCEPTION WHEN OTHERS THEN
            GET STACKED DIAGNOSTICS v_error = MESSAGE_TEXT;
            UPDATE queen.timers t
               SET fire_attempts = t.fire_attempts + 1, last_error = v_error
             WHERE t.id = v_id;
          END;
        END LOOP;
      END;
    END;
  END LOOP;
  RETURN v_fired;
END;
$function$;

COMMENT ON FUNCTION queen.fire_timers(p_server_id text, p_ids bigint[], p_now timestamp with time zone) IS 'Fires the timers p_ids that p_server_id still holds with a claim unexpired at p_now (null = clock_timestamp()), in one transaction: their messages are stored through store_messages (keeping transactionId and the message id given at schedule time) and the timers deleted. A timer whose message already exists completes without a second message; a claim lost to expiry fires nothing; a timer the store rejects (e.g. maxSize) keeps its claim and last_error and is retried after the claim expires. Returns the number of timers completed.';
GRANT EXECUTE ON FUNCTION queen.fire_timers(p_server_id text, p_ids bigint[], p_now timestamp with time zone) TO queen_admin, queen_broker;
