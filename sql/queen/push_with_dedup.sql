CREATE OR REPLACE FUNCTION queen.push_with_dedup(p_items jsonb, p_producer_sub text, p_tenant text, p_dedup jsonb)
 RETURNS SETOF queen.push_result
 LANGUAGE plpgsql SECURITY DEFINER SET search_path TO 'pg_catalog', 'queen', 'queen_internal', 'pg_temp' SET plan_cache_mode TO 'force_generic_plan' SET enable_seqscan TO 'off' SET jit TO 'off' AS $function$
DECLARE
  v_now        timestamptz := clock_timestamp();
  v_split      queen.push_item_route[];
  v_has_timers boolean;
  v_rows       queen.push_result[];
BEGIN
  PERFORM queen_internal.check_push_items(p_items);
  -- Most pushes name no deliverAt at all; telling so is one expression, no query.
  IF NOT jsonb_path_exists(p_items, '$[*].deliverAt') THEN
    RETURN QUERY SELECT * FROM queen_internal.store_items(p_items, p_producer_sub, NULL, p_tenant, p_dedup);
    RETURN;
  END IF;

  -- Items whose deliverAt is still ahead are timers. One instant (v_now) decides
  -- for every item; an unparsable deliverAt raises 22023 naming the item.
  SELECT array_agg(ROW(r.idx, r.item, r.is_timer, r.sub_idx)::queen.push_item_route ORDER BY r.idx),
         bool_or(r.is_timer)
    INTO v_split, v_has_timers
    FROM (SELECT t.idx, t.item, t.is_timer,
                 (row_number() OVER (PARTITION BY t.is_timer ORDER BY t.idx) - 1)::int AS sub_idx
            FROM (SELECT (x.ord - 1)::int AS idx, x.e AS item,
                         coalesce(queen_internal.push_item_deliver_at(x.e, (x.ord - 1)::int) > v_now, false) AS is_timer
                    FROM jsonb_array_elements(p_items) WITH ORDINALITY AS x(e, ord)) t) r;
  IF NOT v_has_timers THEN
    -- only past (or null) deliverAt: a plain push
    RETURN QUERY SELECT * FROM queen_internal.store_items(p_items, p_producer_sub, NULL, p_tenant, p_dedup);
    RETURN;
  END IF;

  -- Stored items first, in a statement of their own, so that the scheduling
  -- statement sees them: a timer repeating the key of an item stored by this
  -- same call answers duplicate instead of firing a second message later. The
  -- rows of both halves are merged back into item order.
  SELECT coalesce(array_agg(ROW(s.idx, r.status, r.message_id, r.transaction_id, r.partition_id, r.queue_name,
                                r.partition_name, r.error, r.seq)::queen.push_result), '{}')
    INTO v_rows
    FROM queen_internal.store_items((SELECT coalesce(jsonb_agg(s2.item ORDER BY s2.idx), '[]'::jsonb)
                                 FROM unnest(v_split) s2 WHERE NOT s2.is_timer), p_producer_sub, NULL, p_tenant, p_dedup) r
    JOIN unnest(v_split) s ON NOT s.is_timer AND s.sub_idx = r.idx;

  SELECT v_rows || coalesce(array_agg(ROW(s.idx, r.status, r.message_id, r.transaction_id, r.partition_id,
                                          r.queue_name, r.partition_name, r.error, r.seq)::queen.push_result), '{}')
    INTO v_rows
    FROM queen_internal.schedule_messages((SELECT jsonb_agg(s2.item ORDER BY s2.idx)
                                    FROM unnest(v_split) s2 WHERE s2.is_timer), p_producer_sub, p_tenant) r
    JOIN unnest(v_split) s ON s.is_timer AND s.sub_idx = r.idx;

  RETURN QUERY SELECT * FROM unnest(v_rows) u ORDER BY u.idx;
END;
$function$;

COMMENT ON FUNCTION queen.push_with_dedup(p_items jsonb, p_producer_sub text, p_tenant text, p_dedup jsonb) IS 'queen.push_messages with p_dedup (null = none), what a broker''s cache answers for: stores into the queues of tenant p_tenant ('''' = default; another tenant''s queues are never touched) with producer p_producer_sub a batch of messages (JSON array of {queue, partition?, payload?, transactionId?, traceId?, namespace?, task?, encrypted?, keyHeld?, deliverAt?}) through store_messages; creates missing queues/partitions. Items whose deliverAt (ISO-8601 or epoch ms) is in the future are scheduled through schedule_messages instead (queued = scheduled; partition_id null until the partition exists); a past deliverAt is a plain push. One row per item (idx = 0-based position): queued (seq = its position in the partition), duplicate (message_id = the message pushed with that transactionId within the dedup window), failed (error, e.g. maxSize reached) or encryption_required (docs/encryption.md). Exact dedup under concurrency. p_dedup (null = none) is {"windowMs": the dedup window (default: the session''s queen.dedup_window_ms, else 24 hours), "after": {partition id: seq}}: a caller that answers for every transaction id of a partition up to that seq (a broker''s cache, docs/storage.md) spares the scan of the segments up to it. 22023 on a malformed item.';
GRANT EXECUTE ON FUNCTION queen.push_with_dedup(p_items jsonb, p_producer_sub text, p_tenant text, p_dedup jsonb) TO queen_admin, queen_broker;
