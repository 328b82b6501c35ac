-- Revert queen:store_messages from pg (back to store_messages@v1.0.0: the 1.0.0 bodies of the two helpers
-- release 1.1.0 rewrote; same owner and grants)

BEGIN;

SET LOCAL ROLE queen_owner;

CREATE OR REPLACE FUNCTION queen_internal.lock_push_targets(p_items jsonb, p_tenant text)
 RETURNS queen.push_target[]
 LANGUAGE plpgsql
AS $function$
BEGIN
  RETURN (SELECT array_agg(ROW(k.queue_name, k.partition_name, k.queue_id, k.partition_id, l.last_seq, k.max_size,
                       k.encryption_enabled)::queen.push_target ORDER BY k.partition_id NULLS LAST)
    FROM (SELECT n.queue_name, n.partition_name, q.id AS queue_id, q.max_size, q.encryption_enabled, pr.id AS partition_id
            FROM (SELECT DISTINCT x.e ->> 'queue' AS queue_name, queen_internal.push_item_partition(x.e) AS partition_name
                    FROM jsonb_array_elements(p_items) AS x(e)) n
            LEFT JOIN LATERAL (SELECT q.id, q.max_size, q.encryption_enabled FROM queen.queues q
                                WHERE q.tenant = p_tenant AND q.name = n.queue_name) q ON true
            LEFT JOIN LATERAL (SELECT p.id FROM queen.partitions p
                                WHERE p.queue_id = q.id AND p.name = n.partition_name) pr ON true
           ORDER BY pr.id) k
    -- the lock, taken in the order above; last_seq is read from the locked row version
    LEFT JOIN LATERAL (SELECT p.last_seq FROM queen.partitions p WHERE p.id = k.partition_id FOR UPDATE) l ON true);
END;
$function$;
COMMENT ON FUNCTION queen_internal.lock_push_targets(jsonb,text) IS
  'Internal to store_messages: the distinct (queue, partition) pairs of push items in tenant p_tenant, their partition rows locked FOR UPDATE in ascending id, with last_seq read under the lock; partition_id null for a pair not created yet.';

CREATE OR REPLACE FUNCTION queen_internal.insert_push_items(p_items jsonb, p_producer_sub text, p_message_ids uuid[], p_targets queen.push_target[], p_refused_partitions uuid[], p_created_at timestamp with time zone)
 RETURNS SETOF queen.push_result
 LANGUAGE plpgsql
AS $function$
BEGIN
  RETURN QUERY
  WITH items AS (
    SELECT (x.ord - 1)::int AS idx,
           x.e ->> 'queue' AS queue_name,
           queen_internal.push_item_partition(x.e) AS partition_name,
           coalesce(x.e -> 'payload', '{}'::jsonb) AS payload,
           coalesce(nullif(x.e ->> 'transactionId', ''), queen_internal.uuid_v7()::text) AS transaction_id,
           nullif(x.e ->> 'traceId', '')::uuid AS trace_id,
           coalesce((x.e ->> 'encrypted')::bool, false) AS is_encrypted,
           coalesce(p_message_ids[x.ord], queen_internal.uuid_v7_ordinal(p_created_at, (x.ord - 1)::int)) AS candidate_id
      FROM jsonb_array_elements(p_items) WITH ORDINALITY AS x(e, ord)
  ), resolved AS (
    SELECT i.*, t.partition_id, t.last_seq, t.queue_id, t.max_size,
           -- Scalar subqueries, not joins: each is one unique-key probe on both columns
           -- whatever the statistics. As joins, a plan cached while queen.messages was
           -- small probed by partition_id alone and filtered every message of the
           -- partition per item, so pushes slowed down as history grew.
           coalesce((SELECT m.id FROM queen.messages m
                      WHERE m.partition_id = t.partition_id AND m.transaction_id = i.transaction_id),
                    (SELECT d.message_id FROM queen.dedup_tombstones d
                      WHERE d.partition_id = t.partition_id AND d.transaction_id = i.transaction_id
                        AND d.expires_at > p_created_at)) AS stored_id,
           coalesce(t.partition_id = ANY (p_refused_partitions), false) AS refused,
           row_number() OVER same_key AS occurrence,
           first_value(i.candidate_id) OVER same_key AS key_candidate_id
      FROM items i
      JOIN unnest(p_targets) t ON t.queue_name = i.queue_name AND t.partition_name = i.partition_name
    WINDOW same_key AS (PARTITION BY t.partition_id, i.transaction_id ORDER BY i.idx)
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
    INSERT INTO queen.messages (partition_id, seq, id, transaction_id, payload, trace_id, producer_sub,
                                is_encrypted, created_at)
    SELECT n.partition_id, n.seq, n.candidate_id, n.transaction_id, n.payload, n.trace_id, p_producer_sub,
           n.is_encrypted, p_created_at
      FROM numbered n
     WHERE n.accepted
     ORDER BY n.partition_id, n.seq
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
         CASE WHEN n.refused
              THEN format('queue %s has encryptionEnabled: plaintext refused, the broker must encrypt', n.queue_name)
              WHEN n.stored_id IS NULL AND NOT n.key_accepted
              THEN format('queue %s is full: maxSize %s pending messages reached', n.queue_name, n.max_size) END
    FROM numbered n
   ORDER BY n.idx;
END;
$function$;
COMMENT ON FUNCTION queen_internal.insert_push_items(jsonb,text,uuid[],queen.push_target[],uuid[],timestamp with time zone) IS
  'Internal to store_messages: stores the items into their locked targets at p_created_at (dedup, maxSize, seq allocation, counters, pending flags) and returns one push_result per item.';

COMMENT ON FUNCTION queen_internal.store_messages(jsonb,text,uuid[],text) IS
  'Internal to push_messages and fire_locked_timers: stores already validated push items (no deliverAt routing) into the queues of tenant p_tenant with producer p_producer_sub; p_message_ids[i], when given, is the id of the i-th item''s message (timers keep the id given at schedule time), else ids are minted in item order. Creates missing queues/partitions. One row per item: queued, duplicate (message_id = stored winner), failed (maxSize) or encryption_required (an item sent with keyHeld and without encrypted to a partition of an encryptionEnabled queue refuses every item of that partition in the call).';

RESET ROLE;

COMMIT;
