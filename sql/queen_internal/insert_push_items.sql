CREATE OR REPLACE FUNCTION queen_internal.insert_push_items(p_items jsonb, p_producer_sub text, p_message_ids uuid[], p_targets queen.push_target[], p_refused_partitions uuid[], p_created_at timestamp with time zone)
 RETURNS SETOF queen.push_result
 LANGUAGE plpgsql AS $function$
BEGIN
  RETURN QUERY
  WITH items AS (
    -- payloads stay in p_items until the insert: every step between copies its rows
    SELECT (x.ord - 1)::int AS idx,
           x.e ->> 'queue' AS queue_name,
           queen_internal.push_item_partition(x.e) AS partition_name,
           coalesce(nullif(x.e ->> 'transactionId', ''), queen_internal.uuid_v7()::text) AS transaction_id,
           nullif(x.e ->> 'traceId', '')::uuid AS trace_id,
           coalesce((x.e ->> 'encrypted')::bool, false) AS is_encrypted,
           coalesce((x.e ->> 'keyHeld')::bool, false) AS key_held,
           coalesce(p_message_ids[x.ord], queen_internal.uuid_v7_ordinal(p_created_at, (x.ord - 1)::int)) AS candidate_id
      FROM jsonb_array_elements(p_items) WITH ORDINALITY AS x(e, ord)
  ), targeted AS (
    SELECT i.*, t.partition_id, t.last_seq, t.queue_id, t.max_size,
           -- a partition with a keyHeld plaintext item is refused whole (the broker seals and re-sends it in
           -- order); any other plaintext item of an encrypted queue is refused by itself
           coalesce(t.partition_id = ANY (p_refused_partitions), false)
             OR (coalesce(t.encryption_enabled, false) AND NOT i.is_encrypted) AS refused,
           row_number() OVER same_key AS occurrence,
           first_value(i.candidate_id) OVER same_key AS key_candidate_id
      FROM items i
      JOIN unnest(p_targets) t ON t.queue_name = i.queue_name AND t.partition_name = i.partition_name
    WINDOW same_key AS (PARTITION BY t.partition_id, i.transaction_id ORDER BY i.idx)
  ), probed AS (
    -- the transaction ids each partition is asked to store, probed against its dedup window in one scan
    SELECT t.partition_id, array_agg(t.transaction_id ORDER BY t.idx) AS transaction_ids
      FROM targeted t WHERE t.occurrence = 1 AND NOT t.refused GROUP BY t.partition_id
  ), stored AS (
    -- no scan of a partition whose caller vouches for every seq up to its last (a broker's cache)
    SELECT pr.partition_id, pr.transaction_ids[d.idx] AS transaction_id, d.message_id
      FROM probed pr
      JOIN unnest(p_targets) t ON t.partition_id = pr.partition_id
                              AND (t.dedup_after IS NULL OR t.dedup_after < t.last_seq)
     CROSS JOIN LATERAL queen_internal.segment_duplicates(pr.partition_id, pr.transaction_ids, t.dedup_after,
                                                 coalesce(t.dedup_since, p_created_at - queen_internal.dedup_window(NULL))) d
  ), resolved AS (
    SELECT t.*, s.message_id AS stored_id
      FROM targeted t
      LEFT JOIN stored s ON s.partition_id = t.partition_id AND s.transaction_id = t.transaction_id
  ), ranked AS (
    -- position of each new key among the new keys of its queue (for maxSize)
    SELECT r.*, (r.occurrence = 1 AND r.stored_id IS NULL AND NOT r.refused) AS is_new,
           count(*) FILTER (WHERE r.occurrence = 1 AND r.stored_id IS NULL AND NOT r.refused)
             OVER (PARTITION BY r.queue_id ORDER BY r.idx) AS rank_in_queue
      FROM resolved r
  ), room AS (
    SELECT r.queue_id, max(r.max_size) - queen_internal.queue_pending_count(r.queue_id) AS free_slots
      FROM ranked r
     WHERE r.max_size > 0 AND r.is_new
     GROUP BY r.queue_id
  ), decided AS (
    SELECT r.*, (r.is_new AND (room.queue_id IS NULL OR r.rank_in_queue <= room.free_slots)) AS accepted
      FROM ranked r
      LEFT JOIN room ON room.queue_id = r.queue_id
  ), numbered AS (
    SELECT d.*,
           bool_or(d.accepted) OVER (PARTITION BY d.partition_id, d.transaction_id) AS key_accepted,
           CASE WHEN d.accepted
                THEN d.last_seq + count(*) FILTER (WHERE d.accepted) OVER (PARTITION BY d.partition_id ORDER BY d.idx) END AS seq
      FROM decided d
  ), inserted AS (
    -- one segment per partition: its accepted items in seq order
    INSERT INTO queen.segments (partition_id, base_seq, end_seq, created_at, producer_sub, message_ids, transaction_ids,
                                payloads, trace_ids, encrypted)
    SELECT n.partition_id, min(n.seq), max(n.seq), p_created_at, p_producer_sub,
           array_agg(n.candidate_id ORDER BY n.seq), array_agg(n.transaction_id ORDER BY n.seq),
           array_agg(coalesce(p_items -> n.idx -> 'payload', '{}'::jsonb)::text ORDER BY n.seq),
           CASE WHEN bool_or(n.trace_id IS NOT NULL) THEN array_agg(n.trace_id ORDER BY n.seq) END,
           CASE WHEN bool_or(n.is_encrypted) THEN array_agg(n.is_encrypted ORDER BY n.seq) END
      FROM numbered n
     WHERE n.accepted
     GROUP BY n.partition_id
  ), advanced AS (
    -- the ANY is an index condition on the primary key: never a scan of queen.partitions
    UPDATE queen.partitions p
       SET last_seq = s.max_seq, last_message_at = p_created_at
      FROM (SELECT n.partition_id, max(n.seq) AS max_seq FROM numbered n WHERE n.accepted GROUP BY n.partition_id) s
     WHERE p.id = s.partition_id
       AND p.id = ANY (ARRAY(SELECT t.partition_id FROM unnest(p_targets) t))
  ), woken AS (
    -- The cursor rows of a partition that receives messages become pending (pop's work
    -- list). One primary-key range probe per partition; rows already pending are not
    -- written, so a partition that stays busy costs no write. This statement's snapshot
    -- is taken after the partition locks, so a settle_drained that committed before them
    -- is seen (docs/procedures.md, "Pop's work list").
    UPDATE queen.consumers c
       SET pending = true
     WHERE c.partition_id = ANY (ARRAY(SELECT DISTINCT n.partition_id FROM numbered n WHERE n.accepted))
       AND NOT c.pending
  )
  SELECT n.idx,
         CASE WHEN n.refused THEN 'encryption_required'
              WHEN n.accepted THEN 'queued'
              WHEN n.stored_id IS NOT NULL OR n.key_accepted THEN 'duplicate'
              ELSE 'failed' END,
         CASE WHEN n.refused THEN NULL
              WHEN n.stored_id IS NOT NULL THEN n.stored_id
              WHEN n.key_accepted THEN n.key_candidate_id END,
         n.transaction_id, n.partition_id, n.queue_name, n.partition_name,
         CASE WHEN n.refused AND NOT n.is_encrypted AND NOT n.key_held
              THEN format('queue %s has encryptionEnabled: plaintext refused, and the caller holds no encryption key'
                          ' (the item is not keyHeld): push it through a broker with QUEEN_ENCRYPTION_KEY', n.queue_name)
              WHEN n.refused
              THEN format('queue %s has encryptionEnabled: plaintext refused, the broker must encrypt', n.queue_name)
              WHEN n.stored_id IS NULL AND NOT n.key_accepted
              THEN format('queue %s is full: maxSize %s pending messages reached', n.queue_name, n.max_size) END,
         n.seq
    FROM numbered n
   ORDER BY n.idx;
END;
$function$;

COMMENT ON FUNCTION queen_internal.insert_push_items(p_items jsonb, p_producer_sub text, p_message_ids uuid[], p_targets queen.push_target[], p_refused_partitions uuid[], p_created_at timestamp with time zone) IS 'Internal to store_messages: stores the items into their locked targets at p_created_at (dedup within each target''s dedup_since, after its dedup_after, queen_internal.dedup_window(NULL) when unset; maxSize, seq allocation, one segment per partition, counters, pending flags) and returns one push_result per item; encryption_required for every item of p_refused_partitions and for every plaintext item of an encryptionEnabled queue.';
