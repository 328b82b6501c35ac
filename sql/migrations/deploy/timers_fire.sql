-- Deploy queen:timers_fire to pg
-- The sweeper's procedures: claim due timers, fire them, and tell when the next
-- one is due. Every broker runs them concurrently; the claim (FOR UPDATE SKIP
-- LOCKED plus a claim lease) shares the work without electing anybody, and the
-- fire only acts on rows whose claim is still held, so a timer fires once.

BEGIN;

CREATE FUNCTION queen.claim_due_timers(p_server_id text, p_limit int, p_lease_ms int)
RETURNS SETOF bigint
LANGUAGE plpgsql AS $$
BEGIN
  IF p_server_id IS NULL OR p_server_id = '' THEN
    RAISE EXCEPTION 'server id is required' USING ERRCODE = '22023';
  END IF;
  IF p_limit IS NULL OR p_limit < 1 THEN
    RAISE EXCEPTION 'claim limit must be >= 1 (%)', p_limit USING ERRCODE = '22023';
  END IF;
  IF p_lease_ms IS NULL OR p_lease_ms < 1 THEN
    RAISE EXCEPTION 'claim lease must be >= 1 ms (%)', p_lease_ms USING ERRCODE = '22023';
  END IF;
  -- Due and not held by a live claim; rows another broker is claiming or firing
  -- right now are skipped, not waited for.
  RETURN QUERY
  WITH due AS (
    SELECT t.id
      FROM queen.timers t
     WHERE t.deliver_at <= clock_timestamp()
       AND (t.claim_expires_at IS NULL OR t.claim_expires_at <= clock_timestamp())
     ORDER BY t.deliver_at, t.id
     LIMIT p_limit
       FOR UPDATE SKIP LOCKED
  )
  UPDATE queen.timers t
     SET claimed_by = p_server_id,
         claim_expires_at = clock_timestamp() + p_lease_ms * interval '1 millisecond'
    FROM due
   WHERE t.id = due.id
  RETURNING t.id;
END;
$$;
COMMENT ON FUNCTION queen.claim_due_timers(text, int, int) IS
  'Claims up to p_limit due timers (deliver_at passed, no live claim) for p_server_id for p_lease_ms, skipping rows locked by other brokers; returns their ids in delivery order. Call it in its own transaction so the claim is visible to others. 22023 on an empty server id, limit < 1 or lease < 1 ms.';

-- Stores the messages of timers this transaction already locked, all with the
-- same producer, through push_messages (dedup, maxSize, queue/partition
-- auto-creation, ordering: all of it is the push's). Timers whose message is
-- stored or was already there are deleted; a timer whose push failed keeps its
-- claim (it is retried when the claim expires) and records why.
CREATE FUNCTION queen.fire_locked_timers(p_ids bigint[], p_producer_sub text) RETURNS int
LANGUAGE plpgsql AS $$
DECLARE
  v_items      jsonb;
  v_ids        bigint[];
  v_timer_ids  bigint[];
  v_statuses   text[];
  v_partitions uuid[];
  v_errors     text[];
  v_done       int;
BEGIN
  SELECT jsonb_agg(jsonb_build_object(
           'queue', t.queue_name, 'partition', t.partition_name, 'payload', t.payload,
           'transactionId', t.transaction_id, 'traceId', t.trace_id, 'encrypted', t.is_encrypted,
           'namespace', t.namespace, 'task', t.task, 'messageId', t.message_id)
         ORDER BY t.deliver_at, t.id),
         array_agg(t.id ORDER BY t.deliver_at, t.id)
    INTO v_items, v_ids
    FROM queen.timers t
   WHERE t.id = ANY (p_ids);
  IF v_ids IS NULL THEN
    RETURN 0;
  END IF;

  -- The push runs in a statement of its own: the statements below must see the
  -- messages it inserted (a statement does not see rows written by a function it calls).
  SELECT array_agg(v_ids[r.idx + 1]), array_agg(r.status), array_agg(r.partition_id), array_agg(r.error)
    INTO v_timer_ids, v_statuses, v_partitions, v_errors
    FROM queen.push_messages(v_items, p_producer_sub) r;

  -- The producer was promised the id minted at schedule time: a message this call
  -- stored under another id takes the promised one (nobody has seen it yet, this
  -- transaction has not committed).
  UPDATE queen.messages m
     SET id = t.message_id
    FROM unnest(v_timer_ids, v_statuses, v_partitions) AS r(timer_id, status, partition_id)
    JOIN queen.timers t ON t.id = r.timer_id
   WHERE r.status = 'queued'
     AND m.partition_id = r.partition_id AND m.transaction_id = t.transaction_id
     AND m.id <> t.message_id;

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
$$;
COMMENT ON FUNCTION queen.fire_locked_timers(bigint[], text) IS
  'Internal to fire_timers: pushes the messages of the given (already locked) timers with producer p_producer_sub, deletes the timers that completed (queued or duplicate) and records the error on the others. Returns how many completed.';

CREATE FUNCTION queen.fire_timers(p_server_id text, p_ids bigint[]) RETURNS int
LANGUAGE plpgsql AS $$
DECLARE
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
             AND t.claim_expires_at > clock_timestamp()
           ORDER BY t.id
             FOR UPDATE) l;
  IF v_held IS NULL THEN
    RETURN 0;
  END IF;

  -- push_messages takes one producer per call.
  FOR v_group IN
    SELECT t.producer_sub, array_agg(t.id) AS ids
      FROM queen.timers t
     WHERE t.id = ANY (v_held)
     GROUP BY t.producer_sub
  LOOP
    BEGIN
      v_fired := v_fired + queen.fire_locked_timers(v_group.ids, v_group.producer_sub);
    EXCEPTION WHEN OTHERS THEN
      -- One timer the push rejects must not hold back the others forever (they
      -- would be claimed together again): retry them one by one, and leave the
      -- failing ones claimed, with the error, until their claim expires.
      GET STACKED DIAGNOSTICS v_error = MESSAGE_TEXT;
      RAISE WARNING 'fire_timers: batch push failed (%), firing one by one', v_error;
      DECLARE
        v_id bigint;
      BEGIN
        FOREACH v_id IN ARRAY v_group.ids LOOP
          BEGIN
            v_fired := v_fired + queen.fire_locked_timers(ARRAY[v_id], v_group.producer_sub);
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
$$;
COMMENT ON FUNCTION queen.fire_timers(text, bigint[]) IS
  'Fires the timers p_ids that p_server_id still holds with an unexpired claim, in one transaction: their messages are stored through push_messages (keeping transactionId and the message id given at schedule time) and the timers deleted. A timer whose message already exists completes without a second message; a claim lost to expiry fires nothing; a timer the push rejects (e.g. maxSize) keeps its claim and last_error and is retried after the claim expires. Returns the number of timers completed.';

CREATE FUNCTION queen.next_timer_due() RETURNS timestamptz
LANGUAGE sql STABLE AS $$
  -- An unclaimed timer is due at deliver_at; a claimed one can be claimed again
  -- (if its fire did not complete) when the claim expires, which is always after
  -- its deliver_at.
  SELECT least((SELECT min(t.deliver_at) FROM queen.timers t WHERE t.claim_expires_at IS NULL),
               (SELECT min(t.claim_expires_at) FROM queen.timers t WHERE t.claim_expires_at IS NOT NULL))
$$;
COMMENT ON FUNCTION queen.next_timer_due() IS
  'The earliest instant at which some timer can be claimed (deliver_at of unclaimed timers, claim_expires_at of claimed ones); null when there are no timers. The sweeper sleeps until then, capped by QUEEN_SWEEPER_MAX_SLEEP_MS.';

COMMIT;
