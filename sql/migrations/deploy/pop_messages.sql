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

-- A cursor row's lease and retryDelay gate let a pop claim it at p_now: no lease, or an
-- expired one whose retryDelay has passed too, and no future available_at.
CREATE FUNCTION queen.cursor_is_free(p_lease_id uuid, p_lease_expires_at timestamptz, p_available_at timestamptz,
                                     p_retry_delay_ms int, p_now timestamptz)
RETURNS bool
LANGUAGE sql STABLE AS $$
  SELECT (p_lease_id IS NULL OR p_lease_expires_at + p_retry_delay_ms * interval '1 millisecond' <= p_now)
     AND (p_available_at IS NULL OR p_available_at <= p_now)
$$;
COMMENT ON FUNCTION queen.cursor_is_free(uuid, timestamptz, timestamptz, int, timestamptz) IS
  'True when a cursor row (lease id, lease expiry, retryDelay gate) is claimable at p_now under a queue retryDelay of p_retry_delay_ms.';

-- Cursor rows of group p_group on these partitions, at the group's start point (0 for
-- queue mode); rows that exist are left alone. They are born pending.
CREATE FUNCTION queen.create_cursors(p_partition_ids uuid[], p_group text, p_filter_namespace text DEFAULT NULL,
                                     p_filter_task text DEFAULT NULL, p_tenant text DEFAULT '')
RETURNS void
LANGUAGE sql AS $$
  INSERT INTO queen.consumers (partition_id, consumer_group, queue_id, cursor_seq)
  SELECT p.id, p_group, p.queue_id,
         CASE WHEN p_group = '__QUEUE_MODE__' THEN 0
              ELSE queen.start_cursor(p.id, p.last_seq, p.last_message_at,
                                      queen.subscription_start_at(p_group, p.queue_id, p.name, p_filter_namespace,
                                                                  p_filter_task, p_tenant)) END
    FROM queen.partitions p
   WHERE p.id = ANY (p_partition_ids)
   ORDER BY p.id
  ON CONFLICT ON CONSTRAINT consumers_pkey DO NOTHING
$$;
COMMENT ON FUNCTION queen.create_cursors(uuid[], text, text, text, text) IS
  'Creates the missing cursor rows of a group on the given partitions at its subscription start point (filter records of p_tenant consulted when a filter is given).';

-- Registers group p_group on queue p_queue_id (queen.consumer_groups) and gives it a
-- cursor row on every partition of the queue. The queue row lock orders it with partition
-- creators (their insert takes the FK share lock on that row): partitions committed
-- before it are read below, partitions created after it get their rows from
-- add_partition_cursors. The new rows with nothing after their cursor are settled.
CREATE FUNCTION queen.register_consumer_group(p_queue_id uuid, p_group text, p_filter_namespace text DEFAULT NULL,
                                              p_filter_task text DEFAULT NULL, p_tenant text DEFAULT '')
RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
  v_partition_ids uuid[];
BEGIN
  PERFORM 1 FROM queen.queues q WHERE q.id = p_queue_id FOR UPDATE;
  INSERT INTO queen.consumer_groups (queue_id, consumer_group) VALUES (p_queue_id, p_group)
  ON CONFLICT ON CONSTRAINT consumer_groups_pkey DO NOTHING;
  v_partition_ids := ARRAY(SELECT p.id FROM queen.partitions p WHERE p.queue_id = p_queue_id ORDER BY p.id);
  PERFORM queen.create_cursors(v_partition_ids, p_group, p_filter_namespace, p_filter_task, p_tenant);
  PERFORM queen.settle_drained(p_group, v_partition_ids);
END;
$$;
COMMENT ON FUNCTION queen.register_consumer_group(uuid, text, text, text, text) IS
  'Internal to pop_messages: a group''s first wildcard or filter pop on a queue registers it and creates its cursor rows on every partition at its start point.';

CREATE FUNCTION queen.pop_messages(p_queue text, p_partition text, p_group text, p_batch int,
                                   p_partitions int, p_auto_ack bool,
                                   p_subscription_mode text, p_subscription_from text,
                                   p_namespace text, p_task text,
                                   p_tenant text, p_now timestamptz DEFAULT NULL)
RETURNS TABLE (lease_id uuid, queue_name text, partition_name text, partition_id uuid, message_id uuid,
               transaction_id text, trace_id uuid, payload jsonb, producer_sub text, is_encrypted bool,
               created_at timestamptz, retry_count int)
-- one plan per statement and connection, never re-planned per call (docs/procedures.md, plans)
SET plan_cache_mode = force_generic_plan
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
  v_specific uuid;                  -- the named partition (specific route)
  v_has_cursor bool;
  v_max_partitions int;
  v_requested record;
  v_scan int;                       -- pending cursor rows probed for their oldest message
  v_candidates uuid[];
  v_drained uuid[];                 -- pending rows found with nothing after their cursor
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
    SELECT array_agg(q.id ORDER BY q.id) INTO v_queue_ids
      FROM queen.queues q
     WHERE q.tenant = v_tenant
       AND (v_namespace IS NULL OR q.namespace = v_namespace) AND (v_task IS NULL OR q.task = v_task);
  ELSE
    RAISE EXCEPTION 'queue or namespace/task is required' USING ERRCODE = '22023';
  END IF;
  IF v_queue_ids IS NULL OR queen.get_system_flag('pop_maintenance') THEN
    RETURN;
  END IF;
  IF v_partition IS NOT NULL THEN
    SELECT p.id INTO v_specific FROM queen.partitions p WHERE p.queue_id = v_queue_ids[1] AND p.name = v_partition;
  END IF;
  v_max_partitions := CASE WHEN v_partition IS NULL THEN p_partitions ELSE 1 END;
  v_scan := greatest(64, 4 * v_max_partitions);

  -- 1. A named group's first pop stores its start point (new/timestamp modes), even
  --    when nothing is claimable yet, so "join now" means the time of this pop.
  --    Later pops keep it whatever they ask for (sticky). "First" = the group has no
  --    cursor row on the queue(s) (on the partition, for the specific route).
  IF v_named THEN
    v_requested := queen.requested_subscription(p_subscription_mode, p_subscription_from, v_now);
    IF v_requested.mode IS NOT NULL THEN
      IF v_partition IS NULL THEN
        v_has_cursor := EXISTS (SELECT 1 FROM unnest(v_queue_ids) AS u(queue_id)
                                 WHERE EXISTS (SELECT 1 FROM queen.consumers c
                                                WHERE c.queue_id = u.queue_id AND c.consumer_group = v_group));
      ELSE
        v_has_cursor := EXISTS (SELECT 1 FROM queen.consumers c
                                 WHERE c.partition_id = v_specific AND c.consumer_group = v_group);
      END IF;
      IF v_is_filter AND NOT v_has_cursor THEN
        INSERT INTO queen.subscriptions (tenant, consumer_group, queue_id, partition_name, filter_namespace, filter_task, mode, start_at)
        VALUES (v_tenant, v_group, NULL, '', v_namespace, v_task, v_requested.mode, v_requested.start_at)
        ON CONFLICT ON CONSTRAINT subscriptions_scope_key DO NOTHING;
      ELSIF NOT v_is_filter AND NOT v_has_cursor THEN
        INSERT INTO queen.subscriptions (consumer_group, queue_id, partition_name, mode, start_at)
        SELECT v_group, v_queue_ids[1], coalesce(v_partition, ''), v_requested.mode, v_requested.start_at
         WHERE NOT EXISTS (SELECT 1 FROM queen.subscriptions s
                            WHERE s.consumer_group = v_group AND s.queue_id = v_queue_ids[1]
                              AND s.partition_name IN ('', coalesce(v_partition, '')))
        ON CONFLICT ON CONSTRAINT subscriptions_scope_key DO NOTHING;
      END IF;
    END IF;
  END IF;

  -- 2. Cursor rows. A group's first wildcard or filter pop on a queue registers it there
  --    (cursor rows on every partition at its start point; partitions created later get
  --    theirs from the push that creates them). The specific route only needs the row
  --    of its partition.
  IF v_partition IS NULL THEN
    PERFORM queen.register_consumer_group(u.queue_id, v_group, v_namespace, v_task, v_tenant)
       FROM unnest(v_queue_ids) AS u(queue_id)
      WHERE NOT EXISTS (SELECT 1 FROM queen.consumer_groups g
                         WHERE g.queue_id = u.queue_id AND g.consumer_group = v_group)
      ORDER BY u.queue_id;
  ELSIF v_specific IS NULL THEN
    RETURN;
  ELSIF NOT EXISTS (SELECT 1 FROM queen.consumers c WHERE c.partition_id = v_specific AND c.consumer_group = v_group) THEN
    PERFORM queen.create_cursors(ARRAY[v_specific], v_group);
  END IF;

  -- 3. Candidates, without locks, from the pending cursor rows of the group (pop's work
  --    list, index consumers_queue_group_pending_idx): no live lease, open retryDelay
  --    gate, quiet windowBuffer. Higher queue priority first; then the v_scan least
  --    recently claimed ones (never claimed first: round robin, no starvation) are probed
  --    for their oldest waiting message, which orders them and checks delayedProcessing.
  --    A pop reads at most v_scan rows per queue past the leased ones, however many
  --    partitions the queue has; a probed row with nothing after its cursor is settled.
  SELECT coalesce(array_agg(x.partition_id ORDER BY x.claim_rank) FILTER (WHERE x.next_at IS NOT NULL), '{}'),
         coalesce(array_agg(x.partition_id) FILTER (WHERE x.next_at IS NULL), '{}')
    INTO v_candidates, v_drained
    FROM (
      SELECT w.partition_id, next_message.created_at AS next_at,
             row_number() OVER (ORDER BY w.priority DESC, next_message.created_at, w.partition_id) AS claim_rank
        FROM (
          SELECT c.partition_id, c.cursor_seq, q.priority, q.delayed_processing
            FROM unnest(v_queue_ids) AS u(queue_id)
            JOIN queen.queues q ON q.id = u.queue_id
            CROSS JOIN LATERAL (
             (SELECT c.partition_id, c.cursor_seq, c.last_claimed_at
                FROM queen.consumers c
               WHERE v_specific IS NULL
                 AND c.queue_id = q.id AND c.consumer_group = v_group AND c.pending
                 AND queen.cursor_is_free(c.lease_id, c.lease_expires_at, c.available_at, q.retry_delay_ms, v_now)
                 AND (q.window_buffer = 0
                      OR (SELECT p.last_message_at FROM queen.partitions p WHERE p.id = c.partition_id)
                         <= v_now - q.window_buffer * interval '1 second')
               ORDER BY c.last_claimed_at NULLS FIRST, c.partition_id
               LIMIT v_scan)
              UNION ALL
             (SELECT c.partition_id, c.cursor_seq, c.last_claimed_at
                FROM queen.consumers c
               WHERE c.partition_id = v_specific AND c.consumer_group = v_group AND c.pending
                 AND queen.cursor_is_free(c.lease_id, c.lease_expires_at, c.available_at, q.retry_delay_ms, v_now)
                 AND (q.window_buffer = 0
                      OR (SELECT p.last_message_at FROM queen.partitions p WHERE p.id = c.partition_id)
                         <= v_now - q.window_buffer * interval '1 second'))
            ) c
           ORDER BY q.priority DESC, c.last_claimed_at NULLS FIRST, c.partition_id
           LIMIT v_scan
        ) w
        LEFT JOIN LATERAL (SELECT m.created_at FROM queen.messages m
                            WHERE m.partition_id = w.partition_id AND m.seq > w.cursor_seq
                            ORDER BY m.seq LIMIT 1) next_message ON true
       WHERE next_message.created_at IS NULL OR w.delayed_processing = 0
          OR next_message.created_at <= v_now - w.delayed_processing * interval '1 second'
    ) x;
  IF cardinality(v_drained) > 0 THEN
    PERFORM queen.settle_drained(v_group, v_drained);
  END IF;
  IF cardinality(v_candidates) = 0 THEN
    RETURN;
  END IF;

  -- 4. Claim up to v_max_partitions in candidate order, one primary-key probe each, so a
  --    pop that wants one partition locks and reads one row. SKIP LOCKED plus the re-check
  --    on the locked row version means two concurrent pops can never lease one (partition, group).
  FOREACH v_partition_id IN ARRAY v_candidates LOOP
    EXIT WHEN cardinality(v_claimed) >= v_max_partitions;
    PERFORM 1
       FROM queen.consumers c
       JOIN queen.partitions p ON p.id = c.partition_id
       JOIN queen.queues q ON q.id = c.queue_id
      WHERE c.partition_id = v_partition_id AND c.consumer_group = v_group
        AND p.last_seq > c.cursor_seq
        AND queen.cursor_is_free(c.lease_id, c.lease_expires_at, c.available_at, q.retry_delay_ms, v_now)
        FOR UPDATE OF c SKIP LOCKED;
    IF FOUND THEN
      v_claimed := v_claimed || v_partition_id;
    END IF;
  END LOOP;
  IF cardinality(v_claimed) = 0 THEN
    RETURN;
  END IF;

  -- 5. Read up to p_batch messages in claim order, then lease them (or, with autoAck,
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

  -- 6. autoAck consumed its partitions up to their last message: settle them.
  IF p_auto_ack THEN
    PERFORM queen.settle_drained(v_group, ARRAY(
      SELECT c.partition_id FROM queen.consumers c JOIN queen.partitions p ON p.id = c.partition_id
       WHERE c.partition_id = ANY (v_claimed) AND c.consumer_group = v_group AND c.cursor_seq >= p.last_seq));
  END IF;
END;
$$;
COMMENT ON FUNCTION queen.pop_messages(text, text, text, int, int, bool, text, text, text, text, text, timestamptz) IS
  'Claims up to p_partitions partitions (specific partition, wildcard, or namespace/task filter) of the queues of tenant p_tenant ('''' = default) for group p_group (null/__QUEUE_MODE__ = queue mode) and returns up to p_batch messages in claim order then seq, all under one new lease id (null with p_auto_ack, which moves the cursor instead). Claim order: queue priority, then among the 64 least recently claimed free pending partitions the oldest waiting message. Reads the group''s pending cursor rows (a bounded prefix), never a scan of the queue''s partitions. Honors leases, retryDelay, windowBuffer, delayedProcessing, subscription modes and pop maintenance, all judged at p_now (null = now()). No rows = nothing deliverable. 22023 on batch/partitions < 1 or no queue/filter.';

COMMIT;
