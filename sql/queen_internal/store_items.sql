CREATE OR REPLACE FUNCTION queen_internal.store_items(p_items jsonb, p_producer_sub text, p_message_ids uuid[], p_tenant text, p_dedup jsonb)
 RETURNS SETOF queen.push_result
 LANGUAGE plpgsql SET plan_cache_mode TO 'force_generic_plan' SET enable_seqscan TO 'off' SET jit TO 'off' AS $function$
DECLARE
  v_tenant text := queen_internal.tenant_arg(p_tenant);
  v_created_at timestamptz;
  v_targets queen.push_target[];
  v_refused_partitions uuid[];  -- docs/encryption.md: partitions whose items are all refused
BEGIN
  IF jsonb_array_length(p_items) = 0 THEN
    RETURN;
  END IF;
  IF p_message_ids IS NOT NULL AND cardinality(p_message_ids) <> jsonb_array_length(p_items) THEN
    RAISE EXCEPTION 'store_messages: % message ids for % items', cardinality(p_message_ids), jsonb_array_length(p_items)
      USING ERRCODE = '22023';
  END IF;

  -- 1. Lock the partitions (ascending id), reading last_seq under the lock; create the
  --    queues and partitions that do not exist yet.
  v_targets := queen_internal.lock_push_targets(p_items, v_tenant);
  IF EXISTS (SELECT 1 FROM unnest(v_targets) t WHERE t.partition_id IS NULL) THEN
    v_targets := queen_internal.create_push_targets(p_items, v_tenant, v_targets);
  END IF;
  -- Per partition, seq order, created_at order and commit order agree: the timestamp is
  -- taken once the locks are held.
  v_created_at := clock_timestamp();
  -- the bounds of each partition's dedup scan: p_dedup's window, and the seq its caller answers for
  v_targets := ARRAY(SELECT ROW(t.queue_name, t.partition_name, t.queue_id, t.partition_id, t.last_seq, t.max_size,
                                t.encryption_enabled, (p_dedup -> 'after' ->> t.partition_id::text)::bigint,
                                v_created_at - queen_internal.dedup_window(p_dedup))::queen.push_target
                       FROM unnest(v_targets) t);

  -- 2. Encryption's safety net; a push without keyHeld items (a broker without a key)
  --    pays one scan of the items.
  IF jsonb_path_exists(p_items, '$[*] ? (@.keyHeld == true)') THEN
    v_refused_partitions := queen_internal.refused_push_partitions(p_items, v_targets);
  END IF;

  -- 3. Store them.
  RETURN QUERY SELECT * FROM queen_internal.insert_push_items(p_items, p_producer_sub, p_message_ids, v_targets,
                                                     v_refused_partitions, v_created_at);
END;
$function$;

COMMENT ON FUNCTION queen_internal.store_items(p_items jsonb, p_producer_sub text, p_message_ids uuid[], p_tenant text, p_dedup jsonb) IS 'Internal to push_with_dedup and store_messages: stores already validated push items (no deliverAt routing) into the queues of tenant p_tenant with producer p_producer_sub; p_message_ids[i], when given, is the id of the i-th item''s message (timers keep the id given at schedule time), else ids are minted in item order. Creates missing queues/partitions. One row per item: queued, duplicate (message_id = stored winner), failed (maxSize) or encryption_required: a plaintext item (without encrypted) for an encryptionEnabled queue is never stored; sent with keyHeld it refuses every item of its partition in the call (the broker seals and re-sends them), without keyHeld only itself. p_dedup as queen.push_with_dedup takes it (null: the session''s window (queen_internal.dedup_window), read whole).';
