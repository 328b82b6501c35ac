-- Deploy queen:pop_messages to pg
BEGIN;

-- The start point a pop request asks for when a named group joins (docs/procedures.md, pop_messages):
-- subscriptionFrom wins over subscriptionMode; 'now', 'new' and 'new-only' mean now;
-- an ISO timestamp means that time; anything else (all, from_beginning, '', an
-- unparsable timestamp) means the whole history and yields nulls.
CREATE FUNCTION queen.requested_subscription(p_mode text, p_from text, p_now timestamptz,
                                             OUT mode text, OUT start_at timestamptz)
LANGUAGE plpgsql STABLE AS $$
BEGIN
  IF coalesce(p_from, '') <> '' THEN
    IF lower(p_from) = 'now' THEN
      mode := 'new'; start_at := p_now;
    ELSE
      BEGIN
        start_at := p_from::timestamptz;
        mode := 'timestamp';
      EXCEPTION WHEN invalid_datetime_format OR datetime_field_overflow OR invalid_parameter_value THEN
        start_at := NULL; mode := NULL;  -- unparsable: behave like 'all'
      END;
    END IF;
  ELSIF lower(coalesce(p_mode, '')) IN ('new', 'new-only') THEN
    mode := 'new'; start_at := p_now;
  END IF;
END;
$$;
COMMENT ON FUNCTION queen.requested_subscription(text, text, timestamptz) IS
  'Start point requested by pop parameters subscriptionMode/subscriptionFrom: (new, now), (timestamp, t), or nulls for the whole history.';

-- The stored start time that applies to group p_group on partition p_partition_name of
-- queue p_queue_id: a partition-scoped record wins over a queue-wide one, which wins
-- over a namespace/task filter record (only consulted when a filter is given).
CREATE FUNCTION queen.subscription_start_at(p_group text, p_queue_id uuid, p_partition_name text,
                                            p_filter_namespace text DEFAULT NULL, p_filter_task text DEFAULT NULL,
                                            p_tenant text DEFAULT '')
RETURNS timestamptz
LANGUAGE sql STABLE AS $$
  SELECT s.start_at
    FROM queen.subscriptions s
   WHERE s.consumer_group = p_group
     AND ((s.queue_id = p_queue_id AND s.partition_name IN (p_partition_name, ''))
          OR (s.queue_id IS NULL AND (p_filter_namespace IS NOT NULL OR p_filter_task IS NOT NULL)
              AND s.tenant = p_tenant AND s.filter_namespace IS NOT DISTINCT FROM p_filter_namespace
              AND s.filter_task IS NOT DISTINCT FROM p_filter_task))
   ORDER BY (s.partition_name <> '') DESC, (s.queue_id IS NOT NULL) DESC
   LIMIT 1
$$;
COMMENT ON FUNCTION queen.subscription_start_at(text, uuid, text, text, text, text) IS
  'Start time of a named group on a partition it has no cursor on: partition record, else queue record, else namespace/task filter record of tenant p_tenant; null = from the beginning.';

-- The cursor a group starts with on a partition: the last message created before
-- p_start_at (0 = from the beginning). Scans backwards from the newest message, so a
-- "join now" costs nothing and a past timestamp costs what will be delivered anyway.
CREATE FUNCTION queen.start_cursor(p_partition_id uuid, p_last_seq bigint, p_last_message_at timestamptz,
                                   p_start_at timestamptz)
RETURNS bigint
LANGUAGE sql STABLE AS $$
  SELECT CASE
    WHEN p_start_at IS NULL THEN 0
    WHEN p_last_message_at IS NULL OR p_last_message_at < p_start_at THEN p_last_seq
    ELSE coalesce((SELECT m.seq FROM queen.messages m
                    WHERE m.partition_id = p_partition_id AND m.created_at < p_start_at
                    ORDER BY m.seq DESC LIMIT 1), 0)
  END
$$;
COMMENT ON FUNCTION queen.start_cursor(uuid, bigint, timestamptz, timestamptz) IS
  'Initial cursor_seq on a partition for a group starting at p_start_at: seq of the last message created before it; 0 when p_start_at is null.';

CREATE FUNCTION queen.pop_messages(p_queue text, p_partition text, p_group text, p_batch int,
                                   p_partitions int DEFAULT 1, p_auto_ack bool DEFAULT false,
                                   p_subscription_mode text DEFAULT NULL, p_subscription_from text DEFAULT NULL,
                                   p_namespace text DEFAULT NULL, p_task text DEFAULT NULL,
                                   p_tenant text DEFAULT '', p_now timestamptz DEFAULT NULL)
RETURNS TABLE (lease_id uuid, queue_name text, partition_name text, partition_id uuid, message_id uuid,
               transaction_id text, trace_id uuid, payload jsonb, producer_sub text, is_encrypted bool,
               created_at timestamptz, retry_count int)
LANGUAGE plpgsql AS $$
#variable_conflict use_column
DECLARE
  v_now timestamptz := coalesce(p_now, now());
  v_tenant text := queen.tenant_arg(p_tenant);
  v_group text := coalesce(nullif(p_group, ''), '__QUEUE_MODE__');
  v_named bool;
  v_queue text := nullif(p_queue, '');
  v_partition text := nullif(p_partition, '');
  v_namespace text := nullif(p_namespace, '');
  v_task text := nullif(p_task, '');
  v_is_filter bool;
  v_queue_ids uuid[];
  v_max_partitions int;
  v_requested record;
  v_scan int;                       -- partitions probed for their oldest message
  v_candidates uuid[];
  v_candidate_cursors bigint[];
  v_candidate_missing bool[];
  v_claimed uuid[] := '{}';
  v_partition_id uuid;
  v_lease_id uuid;
BEGIN
  PERFORM queen.check_at_least('batch', p_batch, 1);
  PERFORM queen.check_at_least('partitions', p_partitions, 1);
  v_named := v_group <> '__QUEUE_MODE__';

  IF v_queue IS NOT NULL THEN
    v_is_filter := false;
    v_namespace := NULL;
    v_task := NULL;
    SELECT array_agg(q.id) INTO v_queue_ids FROM queen.queues q WHERE q.tenant = v_tenant AND q.name = v_queue;
  ELSIF v_namespace IS NOT NULL OR v_task IS NOT NULL THEN
    v_is_filter := true;
    v_partition := NULL;
    SELECT array_agg(q.id) INTO v_queue_ids
      FROM queen.queues q
     WHERE q.tenant = v_tenant
       AND (v_namespace IS NULL OR q.namespace = v_namespace) AND (v_task IS NULL OR q.task = v_task);
  ELSE
    RAISE EXCEPTION 'queue or namespace/task is required' USING ERRCODE = '22023';
  END IF;
  IF v_queue_ids IS NULL OR queen.get_system_flag('pop_maintenance') THEN
    RETURN;
  END IF;
  v_max_partitions := CASE WHEN v_partition IS NULL THEN p_partitions ELSE 1 END;
  v_scan := greatest(64, 4 * v_max_partitions);

  -- 1. A named group's first pop stores its start point (new/timestamp modes), even
  --    when nothing is claimable yet, so "join now" means the time of this pop.
  --    Later pops keep it whatever they ask for (sticky).
  IF v_named THEN
    v_requested := queen.requested_subscription(p_subscription_mode, p_subscription_from, v_now);
    IF v_requested.mode IS NOT NULL THEN
      IF v_is_filter THEN
        INSERT INTO queen.subscriptions (tenant, consumer_group, queue_id, partition_name, filter_namespace, filter_task, mode, start_at)
        SELECT v_tenant, v_group, NULL, '', v_namespace, v_task, v_requested.mode, v_requested.start_at
         WHERE NOT EXISTS (SELECT 1 FROM queen.consumers c JOIN queen.partitions p ON p.id = c.partition_id
                            WHERE c.consumer_group = v_group AND p.queue_id = ANY (v_queue_ids))
        ON CONFLICT ON CONSTRAINT subscriptions_scope_key DO NOTHING;
      ELSE
        INSERT INTO queen.subscriptions (consumer_group, queue_id, partition_name, mode, start_at)
        SELECT v_group, v_queue_ids[1], coalesce(v_partition, ''), v_requested.mode, v_requested.start_at
         WHERE NOT EXISTS (SELECT 1 FROM queen.subscriptions s
                            WHERE s.consumer_group = v_group AND s.queue_id = v_queue_ids[1]
                              AND s.partition_name IN ('', coalesce(v_partition, '')))
           AND NOT EXISTS (SELECT 1 FROM queen.consumers c JOIN queen.partitions p ON p.id = c.partition_id
                            WHERE c.consumer_group = v_group AND p.queue_id = v_queue_ids[1]
                              AND (v_partition IS NULL OR p.name = v_partition))
        ON CONFLICT ON CONSTRAINT subscriptions_scope_key DO NOTHING;
      END IF;
    END IF;
  END IF;

  -- 2. A group's first pop on the queue creates its cursor rows for every partition
  --    with messages, at the group's start point. Later pops only check that one row
  --    exists; partitions created afterwards get theirs when first claimed (step 4).
  IF NOT EXISTS (SELECT 1 FROM queen.partitions p
                   JOIN queen.consumers c ON c.partition_id = p.id AND c.consumer_group = v_group
                  WHERE p.queue_id = ANY (v_queue_ids) AND (v_partition IS NULL OR p.name = v_partition)) THEN
    INSERT INTO queen.consumers (partition_id, consumer_group, cursor_seq)
    SELECT p.id, v_group,
           CASE WHEN v_named
                THEN queen.start_cursor(p.id, p.last_seq, p.last_message_at,
                                        queen.subscription_start_at(v_group, p.queue_id, p.name, v_namespace, v_task, v_tenant))
                ELSE 0 END
      FROM queen.partitions p
     WHERE p.queue_id = ANY (v_queue_ids)
       AND (v_partition IS NULL OR p.name = v_partition)
       AND p.last_seq > 0
     ORDER BY p.id
    ON CONFLICT ON CONSTRAINT consumers_pkey DO NOTHING;
  END IF;

  -- 3. Candidates, without locks: partitions with messages after the group's cursor
  --    (or start point), no live lease, open retryDelay gate, quiet windowBuffer.
  --    Higher queue priority first; then the v_scan least recently claimed ones
  --    (never claimed first: round robin, no starvation) are probed for their oldest
  --    waiting message, which orders them and checks delayedProcessing. The bound keeps
  --    a pop on a queue with thousands of partitions to one index probe per partition
  --    plus v_scan message probes.
  SELECT coalesce(array_agg(x.partition_id ORDER BY x.claim_rank), '{}'),
         coalesce(array_agg(x.cursor_seq ORDER BY x.claim_rank), '{}'),
         coalesce(array_agg(x.missing ORDER BY x.claim_rank), '{}')
    INTO v_candidates, v_candidate_cursors, v_candidate_missing
    FROM (
      SELECT w.partition_id, w.cursor_seq, w.missing,
             row_number() OVER (ORDER BY w.priority DESC, next_message.created_at, w.partition_id) AS claim_rank
        FROM (
          SELECT p.id AS partition_id, q.priority, q.delayed_processing, start.cursor_seq,
                 c.partition_id IS NULL AS missing
            FROM queen.partitions p
            JOIN queen.queues q ON q.id = p.queue_id
            LEFT JOIN queen.consumers c ON c.partition_id = p.id AND c.consumer_group = v_group
            CROSS JOIN LATERAL (
              SELECT CASE WHEN c.partition_id IS NOT NULL THEN c.cursor_seq
                          WHEN v_named THEN queen.start_cursor(p.id, p.last_seq, p.last_message_at,
                                              queen.subscription_start_at(v_group, p.queue_id, p.name, v_namespace, v_task, v_tenant))
                          ELSE 0 END AS cursor_seq) start
           WHERE p.queue_id = ANY (v_queue_ids)
             AND (v_partition IS NULL OR p.name = v_partition)
             AND p.last_seq > start.cursor_seq
             AND (c.partition_id IS NULL
                  OR ((c.lease_id IS NULL OR c.lease_expires_at + q.retry_delay_ms * interval '1 millisecond' <= v_now)
                      AND (c.available_at IS NULL OR c.available_at <= v_now)))
             AND (q.window_buffer = 0 OR p.last_message_at <= v_now - q.window_buffer * interval '1 second')
           ORDER BY q.priority DESC, c.last_claimed_at NULLS FIRST, p.id
           LIMIT v_scan
        ) w
        CROSS JOIN LATERAL (SELECT m.created_at FROM queen.messages m
                             WHERE m.partition_id = w.partition_id AND m.seq > w.cursor_seq
                             ORDER BY m.seq LIMIT 1) next_message
       WHERE w.delayed_processing = 0 OR next_message.created_at <= v_now - w.delayed_processing * interval '1 second'
    ) x;
  IF cardinality(v_candidates) = 0 THEN
    RETURN;
  END IF;

  -- 4. Cursor rows for candidates that have none yet (new partitions), then claim up to
  --    v_max_partitions in candidate order. SKIP LOCKED plus the re-check on the locked
  --    row version means two concurrent pops can never lease one (partition, group).
  INSERT INTO queen.consumers (partition_id, consumer_group, cursor_seq)
  SELECT u.partition_id, v_group, u.cursor_seq
    FROM unnest(v_candidates, v_candidate_cursors, v_candidate_missing) AS u(partition_id, cursor_seq, missing)
   WHERE u.missing
   ORDER BY u.partition_id
  ON CONFLICT ON CONSTRAINT consumers_pkey DO NOTHING;

  FOR v_partition_id IN
    SELECT c.partition_id
      FROM unnest(v_candidates) WITH ORDINALITY AS u(partition_id, claim_rank)
      JOIN queen.consumers c ON c.partition_id = u.partition_id AND c.consumer_group = v_group
      JOIN queen.partitions p ON p.id = c.partition_id
      JOIN queen.queues q ON q.id = p.queue_id
     WHERE c.partition_id = ANY (v_candidates)  -- lets the planner probe the primary key
       AND p.last_seq > c.cursor_seq
       AND (c.lease_id IS NULL OR c.lease_expires_at + q.retry_delay_ms * interval '1 millisecond' <= v_now)
       AND (c.available_at IS NULL OR c.available_at <= v_now)
     ORDER BY u.claim_rank
     LIMIT v_max_partitions
       FOR UPDATE OF c SKIP LOCKED
  LOOP
    v_claimed := v_claimed || v_partition_id;
  END LOOP;
  IF cardinality(v_claimed) = 0 THEN
    RETURN;
  END IF;

  -- 4. Read up to p_batch messages in claim order, then lease them (or, with autoAck,
  --    move the cursor past them). A claimed partition that yields nothing keeps no lease.
  v_lease_id := CASE WHEN p_auto_ack THEN NULL ELSE queen.uuid_v7() END;
  RETURN QUERY
  WITH claimed AS (
    SELECT u.partition_id, u.claim_rank, c.cursor_seq, c.retry_count, p.name::text AS partition_name,
           q.name::text AS queue_name, q.delayed_processing,
           CASE WHEN q.lease_time = 0 THEN 60 ELSE q.lease_time END AS lease_seconds
      FROM unnest(v_claimed) WITH ORDINALITY AS u(partition_id, claim_rank)
      JOIN queen.consumers c ON c.partition_id = u.partition_id AND c.consumer_group = v_group
      JOIN queen.partitions p ON p.id = u.partition_id
      JOIN queen.queues q ON q.id = p.queue_id
     WHERE c.partition_id = ANY (v_claimed)
  ), picked AS (
    SELECT cl.partition_id, cl.partition_name, cl.queue_name, cl.retry_count, cl.lease_seconds,
           m.seq, m.id, m.transaction_id, m.trace_id, m.payload, m.producer_sub, m.is_encrypted, m.created_at,
           row_number() OVER (ORDER BY cl.claim_rank, m.seq) AS position
      FROM claimed cl
      CROSS JOIN LATERAL (
        SELECT m.* FROM queen.messages m
         WHERE m.partition_id = cl.partition_id AND m.seq > cl.cursor_seq
           AND (cl.delayed_processing = 0 OR m.created_at <= v_now - cl.delayed_processing * interval '1 second')
         ORDER BY m.seq
         LIMIT p_batch) m
  ), delivered AS (
    SELECT * FROM picked WHERE picked.position <= p_batch
  ), per_partition AS (
    SELECT d.partition_id, count(*)::int AS n, max(d.seq) AS max_seq, max(d.lease_seconds) AS lease_seconds
      FROM delivered d GROUP BY d.partition_id
  ), updated AS (
    UPDATE queen.consumers c
       SET lease_id = v_lease_id,
           lease_expires_at = CASE WHEN p_auto_ack THEN NULL ELSE v_now + pp.lease_seconds * interval '1 second' END,
           lease_count = CASE WHEN p_auto_ack THEN 0 ELSE pp.n END,
           lease_acked = 0,
           lease_max_seq = CASE WHEN p_auto_ack THEN 0 ELSE pp.max_seq END,
           cursor_seq = CASE WHEN p_auto_ack THEN pp.max_seq ELSE c.cursor_seq END,
           total_consumed = c.total_consumed + CASE WHEN p_auto_ack THEN pp.n ELSE 0 END,
           last_consumed_at = CASE WHEN p_auto_ack THEN v_now ELSE c.last_consumed_at END,
           last_claimed_at = v_now,
           available_at = NULL
      FROM per_partition pp
     WHERE c.partition_id = pp.partition_id AND c.consumer_group = v_group
       AND c.partition_id = ANY (v_claimed)  -- lets the planner probe the primary key
    RETURNING c.partition_id
  )
  SELECT v_lease_id, d.queue_name, d.partition_name, d.partition_id, d.id, d.transaction_id, d.trace_id,
         d.payload, d.producer_sub, d.is_encrypted, d.created_at, d.retry_count
    FROM delivered d
   ORDER BY d.position;
END;
$$;
COMMENT ON FUNCTION queen.pop_messages(text, text, text, int, int, bool, text, text, text, text, text, timestamptz) IS
  'Claims up to p_partitions partitions (specific partition, wildcard, or namespace/task filter) of the queues of tenant p_tenant ('''' = default) for group p_group (null/__QUEUE_MODE__ = queue mode) and returns up to p_batch messages in claim order then seq, all under one new lease id (null with p_auto_ack, which moves the cursor instead). Claim order: queue priority, then among the 64 least recently claimed free partitions the oldest waiting message. Honors leases, retryDelay, windowBuffer, delayedProcessing, subscription modes and pop maintenance, all judged at p_now (null = now()). No rows = nothing deliverable. 22023 on batch/partitions < 1 or no queue/filter.';

COMMIT;
