-- Revert queen:push_messages_deliver_at from pg
-- Restores push_messages as deployed by the push_messages change.

BEGIN;

DROP FUNCTION queen.timer_queue_names(bigint[]);

CREATE OR REPLACE FUNCTION queen.push_messages(p_items jsonb, p_producer_sub text DEFAULT NULL)
RETURNS TABLE (idx int, status text, message_id uuid, transaction_id text, partition_id uuid,
               queue_name text, partition_name text, error text)
LANGUAGE plpgsql AS $$
#variable_conflict use_column
DECLARE
  v_created_at timestamptz;
BEGIN
  PERFORM queen.check_push_items(p_items);
  IF jsonb_array_length(p_items) = 0 THEN
    RETURN;
  END IF;

  -- 1. Missing queues: namespace/task from the first item naming the queue, else
  --    derived from the name. Name order, so concurrent creators cannot deadlock.
  INSERT INTO queen.queues (name, namespace, task)
  SELECT n.name, coalesce(n.namespace, queen.queue_namespace_of(n.name)), coalesce(n.task, queen.queue_task_of(n.name))
    FROM (SELECT DISTINCT ON (x.e ->> 'queue') x.e ->> 'queue' AS name,
                 nullif(x.e ->> 'namespace', '') AS namespace, nullif(x.e ->> 'task', '') AS task
            FROM jsonb_array_elements(p_items) WITH ORDINALITY AS x(e, ord)
           ORDER BY x.e ->> 'queue', x.ord) n
   WHERE NOT EXISTS (SELECT 1 FROM queen.queues q WHERE q.name = n.name)
   ORDER BY n.name
  ON CONFLICT (name) DO NOTHING;

  -- 2. Missing partitions, in key order for the same reason.
  INSERT INTO queen.partitions (queue_id, name)
  SELECT DISTINCT q.id, queen.push_item_partition(x.e)
    FROM jsonb_array_elements(p_items) AS x(e)
    JOIN queen.queues q ON q.name = x.e ->> 'queue'
   WHERE NOT EXISTS (SELECT 1 FROM queen.partitions p
                      WHERE p.queue_id = q.id AND p.name = queen.push_item_partition(x.e))
   ORDER BY 1, 2
  ON CONFLICT ON CONSTRAINT partitions_queue_name_key DO NOTHING;

  -- 3. Serialize with every other writer of these partitions (ascending id order, so
  --    two batches cannot deadlock), then take the timestamp: per partition, seq order,
  --    created_at order and commit order agree.
  PERFORM 1
     FROM queen.partitions p
    WHERE p.id IN (SELECT p2.id
                     FROM jsonb_array_elements(p_items) AS x(e)
                     JOIN queen.queues q ON q.name = x.e ->> 'queue'
                     JOIN queen.partitions p2 ON p2.queue_id = q.id AND p2.name = queen.push_item_partition(x.e))
    ORDER BY p.id
      FOR UPDATE;
  v_created_at := clock_timestamp();

  -- 4. One statement: dedup (within the batch, against stored rows and live
  --    tombstones), maxSize, seq allocation, insert, counter update, per-item outcome.
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
           queen.uuid_v7_ordinal(v_created_at, (x.ord - 1)::int) AS candidate_id
      FROM jsonb_array_elements(p_items) WITH ORDINALITY AS x(e, ord)
  ), resolved AS (
    SELECT i.*, p.id AS partition_id, p.last_seq, q.id AS queue_id, q.max_size,
           coalesce(m.id, t.message_id) AS stored_id,
           row_number() OVER same_key AS occurrence,
           first_value(i.candidate_id) OVER same_key AS key_candidate_id
      FROM items i
      JOIN queen.queues q ON q.name = i.queue_name
      JOIN queen.partitions p ON p.queue_id = q.id AND p.name = i.partition_name
      LEFT JOIN queen.messages m ON m.partition_id = p.id AND m.transaction_id = i.transaction_id
      LEFT JOIN queen.dedup_tombstones t
             ON t.partition_id = p.id AND t.transaction_id = i.transaction_id AND t.expires_at > v_created_at
    WINDOW same_key AS (PARTITION BY p.id, i.transaction_id ORDER BY i.idx)
  ), ranked AS (
    -- position of each new key among the new keys of its queue (for maxSize)
    SELECT r.*, (r.occurrence = 1 AND r.stored_id IS NULL) AS is_new,
           count(*) FILTER (WHERE r.occurrence = 1 AND r.stored_id IS NULL)
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
  )
  SELECT n.idx,
         CASE WHEN n.accepted THEN 'queued'
              WHEN n.stored_id IS NOT NULL OR n.key_accepted THEN 'duplicate'
              ELSE 'failed' END,
         CASE WHEN n.stored_id IS NOT NULL THEN n.stored_id
              WHEN n.key_accepted THEN n.key_candidate_id END,
         n.transaction_id, n.partition_id, n.queue_name, n.partition_name,
         CASE WHEN n.stored_id IS NULL AND NOT n.key_accepted
              THEN format('queue %s is full: maxSize %s pending messages reached', n.queue_name, n.max_size) END
    FROM numbered n
   ORDER BY n.idx;
END;
$$;
COMMENT ON FUNCTION queen.push_messages(jsonb, text) IS
  'Stores a batch of messages (JSON array of {queue, partition?, payload?, transactionId?, traceId?, namespace?, task?, encrypted?}); creates missing queues/partitions. One row per item (idx = 0-based position): queued, duplicate (message_id = stored winner) or failed (error, e.g. maxSize reached). Exact dedup under concurrency. 22023 on a malformed item.';

DROP TYPE queen.push_result;
DROP TYPE queen.push_item_route;

COMMIT;
