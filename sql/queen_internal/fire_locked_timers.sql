CREATE OR REPLACE FUNCTION queen_internal.fire_locked_timers(p_ids bigint[], p_producer_sub text, p_tenant text DEFAULT ''::text)
 RETURNS integer
 LANGUAGE plpgsql AS $function$
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
    FROM queen_internal.store_messages(v_items, p_producer_sub, v_message_ids, p_tenant) r;

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

COMMENT ON FUNCTION queen_internal.fire_locked_timers(p_ids bigint[], p_producer_sub text, p_tenant text) IS 'Internal to fire_timers: stores the messages of the given (already locked) timers, all of tenant p_tenant, through store_messages with producer p_producer_sub and the message ids given at schedule time, deletes the timers that completed (queued or duplicate) and records the error on the others. Returns how many completed.';
