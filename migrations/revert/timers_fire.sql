-- Revert queen:timers_fire from pg (back to timers_fire@v0.9.0: the pre-release functions, owned by the reverting user)

BEGIN;

SET LOCAL check_function_bodies = off;

DROP FUNCTION
  queen.claim_due_timers(text,integer,integer,timestamp with time zone),
  queen_internal.fire_locked_timers(bigint[],text,text),
  queen.fire_timers(text,bigint[],timestamp with time zone),
  queen.next_timer_due(),
  queen.timer_queue_names(bigint[]);

CREATE OR REPLACE FUNCTION queen.claim_due_timers(p_server_id text, p_limit integer, p_lease_ms integer, p_now timestamp with time zone DEFAULT NULL::timestamp with time zone)
 RETURNS SETOF bigint
 LANGUAGE plpgsql
AS $function$
DECLARE
  v_now timestamptz := coalesce(p_now, clock_timestamp());
BEGIN
  IF p_server_id IS NULL OR p_server_id = '' THEN
    RAISE EXCEPTION 'server id is required' USING ERRCODE = '22023';
  END IF;
  PERFORM queen.check_at_least('claim limit', p_limit, 1);
  PERFORM queen.check_at_least('claim lease ms', p_lease_ms, 1);
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
COMMENT ON FUNCTION queen.claim_due_timers(text,integer,integer,timestamp with time zone) IS
  'Claims up to p_limit due timers (deliver_at passed, no live claim) for p_server_id for p_lease_ms, skipping rows locked by other brokers; returns their ids in delivery order. Call it in its own transaction so the claim is visible to others. p_now: the instant to claim at (null = clock_timestamp()). 22023 on an empty server id, limit < 1 or lease < 1 ms.';

CREATE OR REPLACE FUNCTION queen.fire_locked_timers(p_ids bigint[], p_producer_sub text, p_tenant text DEFAULT ''::text)
 RETURNS integer
 LANGUAGE plpgsql
AS $function$
DECLARE
  v_items       jsonb;
  v_ids         bigint[];
  v_message_ids uuid[];
  v_timer_ids   bigint[];
  v_statuses    text[];
  v_errors      text[];
  v_done        int;
BEGIN
  SELECT jsonb_agg(jsonb_build_object(
           'queue', t.queue_name, 'partition', t.partition_name, 'payload', t.payload,
           'transactionId', t.transaction_id, 'traceId', t.trace_id, 'encrypted', t.is_encrypted,
           'namespace', t.namespace, 'task', t.task)
         ORDER BY t.deliver_at, t.id),
         array_agg(t.id ORDER BY t.deliver_at, t.id),
         array_agg(t.message_id ORDER BY t.deliver_at, t.id)
    INTO v_items, v_ids, v_message_ids
    FROM queen.timers t
   WHERE t.id = ANY (p_ids);
  IF v_ids IS NULL THEN
    RETURN 0;
  END IF;

  -- The store runs in a statement of its own: the statements below must see the
  -- messages it inserted (a statement does not see rows written by a function it calls).
  SELECT array_agg(v_ids[r.idx + 1]), array_agg(r.status), array_agg(r.error)
    INTO v_timer_ids, v_statuses, v_errors
    FROM queen.store_messages(v_items, p_producer_sub, v_message_ids, p_tenant) r;

  -- Stored now, or already there (the timer's transactionId was pushed meanwhile):
  -- either way the timer is done.
  DELETE FROM queen.timers t
   USING unnest(v_timer_ids, v_statuses) AS r(timer_id, status)
   WHERE t.id = r.timer_id AND r.status IN ('queued', 'duplicate');
  GET DIAGNOSTICS v_done = ROW_COUNT;

  UPDATE queen.timers t
     SET fire_attempts = t.fire_attempts + 1, last_error = coalesce(r.error, r.status)
    FROM unnest(v_timer_ids, v_statuses, v_errors) AS r(timer_id, status, error)
   WHERE t.id = r.timer_id AND r.status NOT IN ('queued', 'duplicate');
  RETURN v_done;
END;
$function$;
COMMENT ON FUNCTION queen.fire_locked_timers(bigint[],text,text) IS
  'Internal to fire_timers: stores the messages of the given (already locked) timers, all of tenant p_tenant, through store_messages with producer p_producer_sub and the message ids given at schedule time, deletes the timers that completed (queued or duplicate) and records the error on the others. Returns how many completed.';

CREATE OR REPLACE FUNCTION queen.fire_timers(p_server_id text, p_ids bigint[], p_now timestamp with time zone DEFAULT NULL::timestamp with time zone)
 RETURNS integer
 LANGUAGE plpgsql
AS $function$
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
      v_fired := v_fired + queen.fire_locked_timers(v_group.ids, v_group.producer_sub, v_group.tenant);
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
            v_fired := v_fired + queen.fire_locked_timers(ARRAY[v_id], v_group.producer_sub, v_group.tenant);
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
COMMENT ON FUNCTION queen.fire_timers(text,bigint[],timestamp with time zone) IS
  'Fires the timers p_ids that p_server_id still holds with a claim unexpired at p_now (null = clock_timestamp()), in one transaction: their messages are stored through store_messages (keeping transactionId and the message id given at schedule time) and the timers deleted. A timer whose message already exists completes without a second message; a claim lost to expiry fires nothing; a timer the store rejects (e.g. maxSize) keeps its claim and last_error and is retried after the claim expires. Returns the number of timers completed.';

CREATE OR REPLACE FUNCTION queen.next_timer_due()
 RETURNS timestamp with time zone
 LANGUAGE sql
 STABLE
AS $function$
  -- An unclaimed timer is due at deliver_at; a claimed one can be claimed again
  -- (if its fire did not complete) when the claim expires, which is always after
  -- its deliver_at.
  SELECT least((SELECT min(t.deliver_at) FROM queen.timers t WHERE t.claim_expires_at IS NULL),
               (SELECT min(t.claim_expires_at) FROM queen.timers t WHERE t.claim_expires_at IS NOT NULL))
$function$;
COMMENT ON FUNCTION queen.next_timer_due() IS
  'The earliest instant at which some timer can be claimed (deliver_at of unclaimed timers, claim_expires_at of claimed ones); null when there are no timers. The sweeper sleeps until then, capped by QUEEN_SWEEPER_MAX_SLEEP_MS.';

CREATE OR REPLACE FUNCTION queen.timer_queue_names(p_ids bigint[])
 RETURNS SETOF text
 LANGUAGE sql
 STABLE
AS $function$
  SELECT DISTINCT t.queue_name FROM queen.timers t WHERE t.id = ANY (p_ids) ORDER BY 1
$function$;
COMMENT ON FUNCTION queen.timer_queue_names(bigint[]) IS
  'Distinct queue names of the timers p_ids (absent ids are ignored). Read by a sweeper before it fires its claimed timers, to wake the long polls of those queues.';

COMMIT;
