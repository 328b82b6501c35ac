-- Deploy queen:store_messages to pg
BEGIN;

-- Messages of a queue not yet consumed by every consumer group of their partition
-- (a partition nobody consumes counts all its messages). This is what maxSize caps.
-- It reads only the pending tail of each partition, so its cost is bounded by the
-- cap itself on a queue that enforces one.
CREATE FUNCTION queen.queue_pending_count(p_queue_id uuid) RETURNS bigint
LANGUAGE sql STABLE AS $$
  SELECT coalesce(sum(pending.n), 0)::bigint
    FROM queen.partitions p
    CROSS JOIN LATERAL (
      SELECT count(*) AS n FROM queen.messages m
       WHERE m.partition_id = p.id
         AND m.seq > coalesce((SELECT min(c.cursor_seq) FROM queen.consumers c WHERE c.partition_id = p.id), 0)
    ) pending
   WHERE p.queue_id = p_queue_id
$$;
COMMENT ON FUNCTION queen.queue_pending_count(uuid) IS
  'Messages of the queue that at least one consumer group has not consumed yet (all messages of partitions without consumers). maxSize caps this number.';

-- The one implementation of storing push items: creates missing queues and
-- partitions, serializes on the partition rows, deduplicates, enforces maxSize,
-- allocates sequence numbers and inserts the message rows, all set-based (one
-- statement per step for the whole batch). Internal: it trusts its items (the
-- callers validate them, or read them from rows that were validated) and knows
-- nothing of deliverAt. Its callers: push_messages (a push, and the stored half
-- of a push with timers) and fire_locked_timers (timers coming due). Every queue
-- it names is p_tenant's: another tenant's queue of the same name is never touched.
CREATE FUNCTION queen.store_messages(p_items jsonb, p_producer_sub text DEFAULT NULL,
                                     p_message_ids uuid[] DEFAULT NULL, p_tenant text DEFAULT '')
RETURNS SETOF queen.push_result
LANGUAGE plpgsql AS $$
DECLARE
  v_tenant text := queen.tenant_arg(p_tenant);
  v_created_at timestamptz;
  v_refused_partitions uuid[];  -- docs/encryption.md: partitions whose items are all refused
  v_created_partitions uuid[];
BEGIN
  IF jsonb_array_length(p_items) = 0 THEN
    RETURN;
  END IF;
  IF p_message_ids IS NOT NULL AND cardinality(p_message_ids) <> jsonb_array_length(p_items) THEN
    RAISE EXCEPTION 'store_messages: % message ids for % items', cardinality(p_message_ids), jsonb_array_length(p_items)
      USING ERRCODE = '22023';
  END IF;

  -- 1. Missing queues: namespace/task from the first item naming the queue, else
  --    derived from the name. Name order, so concurrent creators cannot deadlock.
  INSERT INTO queen.queues (tenant, name, namespace, task)
  SELECT v_tenant, n.name, coalesce(n.namespace, queen.queue_namespace_of(n.name)), coalesce(n.task, queen.queue_task_of(n.name))
    FROM (SELECT DISTINCT ON (x.e ->> 'queue') x.e ->> 'queue' AS name,
                 nullif(x.e ->> 'namespace', '') AS namespace, nullif(x.e ->> 'task', '') AS task
            FROM jsonb_array_elements(p_items) WITH ORDINALITY AS x(e, ord)
           ORDER BY x.e ->> 'queue', x.ord) n
   WHERE NOT EXISTS (SELECT 1 FROM queen.queues q WHERE q.tenant = v_tenant AND q.name = n.name)
   ORDER BY n.name
  ON CONFLICT ON CONSTRAINT queues_tenant_name_key DO NOTHING;

  -- 2. Missing partitions, in key order for the same reason, then (a statement later,
  --    see add_partition_cursors) the cursor rows of the groups registered on their queue.
  WITH created AS (
    INSERT INTO queen.partitions (queue_id, name)
    SELECT DISTINCT q.id, queen.push_item_partition(x.e)
      FROM jsonb_array_elements(p_items) AS x(e)
      JOIN queen.queues q ON q.tenant = v_tenant AND q.name = x.e ->> 'queue'
     WHERE NOT EXISTS (SELECT 1 FROM queen.partitions p
                        WHERE p.queue_id = q.id AND p.name = queen.push_item_partition(x.e))
     ORDER BY 1, 2
    ON CONFLICT ON CONSTRAINT partitions_queue_name_key DO NOTHING
    RETURNING id
  )
  SELECT array_agg(created.id) INTO v_created_partitions FROM created;
  IF v_created_partitions IS NOT NULL THEN
    PERFORM queen.add_partition_cursors(v_created_partitions);
  END IF;

  -- Payload encryption's safety net (docs/encryption.md): a broker holding a key sent
  -- plaintext (keyHeld) to a queue that wants encryption, its list being stale. Every
  -- item of such a partition is refused, so the broker re-sends them encrypted, in order.
  -- A push without keyHeld items (a broker without a key) pays one scan of the items.
  IF jsonb_path_exists(p_items, '$[*] ? (@.keyHeld == true)') THEN
    SELECT array_agg(DISTINCT p.id) INTO v_refused_partitions
      FROM jsonb_array_elements(p_items) AS x(e)
      JOIN queen.queues q ON q.tenant = v_tenant AND q.name = x.e ->> 'queue' AND q.encryption_enabled
      JOIN queen.partitions p ON p.queue_id = q.id AND p.name = queen.push_item_partition(x.e)
     WHERE coalesce((x.e ->> 'keyHeld')::bool, false) AND NOT coalesce((x.e ->> 'encrypted')::bool, false);
  END IF;

  -- 3. Serialize with every other writer of these partitions (ascending id order, so
  --    two batches cannot deadlock), then take the timestamp: per partition, seq order,
  --    created_at order and commit order agree.
  PERFORM 1
     FROM queen.partitions p
    WHERE p.id IN (SELECT p2.id
                     FROM jsonb_array_elements(p_items) AS x(e)
                     JOIN queen.queues q ON q.tenant = v_tenant AND q.name = x.e ->> 'queue'
                     JOIN queen.partitions p2 ON p2.queue_id = q.id AND p2.name = queen.push_item_partition(x.e))
    ORDER BY p.id
      FOR UPDATE;
  v_created_at := clock_timestamp();

  -- 4. One statement: dedup (within the batch, against stored rows and live
  --    tombstones), maxSize, seq allocation, insert, counter update, pop's pending
  --    flags, per-item outcome.
  --    Its snapshot is taken after the locks above, so the dedup check is exact and
  --    the insert needs no ON CONFLICT (a unique violation here would be a bug in a
  --    writer that skipped the partition lock, and is raised as such). Outcomes are
  --    computed with window functions over the items, never by joining the item list
  --    with itself, so the cost stays linear in the batch size.
  RETURN QUERY
  WITH items AS (
    SELECT (x.ord - 1)::int AS idx,
           x.e ->> 'queue' AS queue_name,
           queen.push_item_partition(x.e) AS partition_name,
           coalesce(x.e -> 'payload', '{}'::jsonb) AS payload,
           coalesce(nullif(x.e ->> 'transactionId', ''), queen.uuid_v7()::text) AS transaction_id,
           nullif(x.e ->> 'traceId', '')::uuid AS trace_id,
           coalesce((x.e ->> 'encrypted')::bool, false) AS is_encrypted,
           coalesce(p_message_ids[x.ord], queen.uuid_v7_ordinal(v_created_at, (x.ord - 1)::int)) AS candidate_id
      FROM jsonb_array_elements(p_items) WITH ORDINALITY AS x(e, ord)
  ), resolved AS (
    SELECT i.*, p.id AS partition_id, p.last_seq, q.id AS queue_id, q.max_size,
           -- Scalar subqueries, not joins: each is one unique-key probe on both columns
           -- whatever the statistics. As joins, a plan cached while queen.messages was
           -- small probed by partition_id alone and filtered every message of the
           -- partition per item, so pushes slowed down as history grew.
           coalesce((SELECT m.id FROM queen.messages m
                      WHERE m.partition_id = p.id AND m.transaction_id = i.transaction_id),
                    (SELECT t.message_id FROM queen.dedup_tombstones t
                      WHERE t.partition_id = p.id AND t.transaction_id = i.transaction_id
                        AND t.expires_at > v_created_at)) AS stored_id,
           coalesce(p.id = ANY (v_refused_partitions), false) AS refused,
           row_number() OVER same_key AS occurrence,
           first_value(i.candidate_id) OVER same_key AS key_candidate_id
      FROM items i
      JOIN queen.queues q ON q.tenant = v_tenant AND q.name = i.queue_name
      JOIN queen.partitions p ON p.queue_id = q.id AND p.name = i.partition_name
    WINDOW same_key AS (PARTITION BY p.id, i.transaction_id ORDER BY i.idx)
  ), ranked AS (
    -- position of each new key among the new keys of its queue (for maxSize)
    SELECT r.*, (r.occurrence = 1 AND r.stored_id IS NULL AND NOT r.refused) AS is_new,
           count(*) FILTER (WHERE r.occurrence = 1 AND r.stored_id IS NULL AND NOT r.refused)
             OVER (PARTITION BY r.queue_id ORDER BY r.idx) AS rank_in_queue
      FROM resolved r
  ), room AS (
    SELECT r.queue_id, max(r.max_size) - queen.queue_pending_count(r.queue_id) AS free_slots
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
           n.is_encrypted, v_created_at
      FROM numbered n
     WHERE n.accepted
     ORDER BY n.partition_id, n.seq
  ), advanced AS (
    UPDATE queen.partitions p
       SET last_seq = s.max_seq, last_message_at = v_created_at
      FROM (SELECT n.partition_id, max(n.seq) AS max_seq FROM numbered n WHERE n.accepted GROUP BY n.partition_id) s
     WHERE p.id = s.partition_id
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
$$;
COMMENT ON FUNCTION queen.store_messages(jsonb, text, uuid[], text) IS
  'Internal to push_messages and fire_locked_timers: stores already validated push items (no deliverAt routing) into the queues of tenant p_tenant with producer p_producer_sub; p_message_ids[i], when given, is the id of the i-th item''s message (timers keep the id given at schedule time), else ids are minted in item order. Creates missing queues/partitions. One row per item: queued, duplicate (message_id = stored winner), failed (maxSize) or encryption_required (an item sent with keyHeld and without encrypted to a partition of an encryptionEnabled queue refuses every item of that partition in the call).';

COMMIT;
