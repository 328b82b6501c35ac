CREATE OR REPLACE FUNCTION queen.pop_messages(p_queue text, p_partition text, p_group text, p_batch integer, p_partitions integer, p_auto_ack boolean, p_subscription_mode text, p_subscription_from text, p_namespace text, p_task text, p_tenant text, p_now timestamp with time zone DEFAULT NULL::timestamp with time zone)
 RETURNS TABLE(lease_id uuid, queue_name text, partition_name text, partition_id uuid, message_id uuid, transaction_id text, trace_id uuid, payload text, producer_sub text, is_encrypted boolean, created_at timestamp with time zone, retry_count integer)
 LANGUAGE plpgsql SECURITY DEFINER SET search_path TO 'pg_catalog', 'queen', 'queen_internal', 'pg_temp' SET plan_cache_mode TO 'force_generic_plan' SET enable_seqscan TO 'off' SET jit TO 'off' AS $function$
#variable_conflict use_column
DECLARE
  v_now timestamptz := coalesce(p_now, now());
  v_tenant text := queen_internal.tenant_arg(p_tenant);
  v_group text := queen_internal.group_or_queue_mode(p_group);
  v_queue text := nullif(p_queue, '');
  v_partition text := nullif(p_partition, '');   -- the specific route (a queue, not a filter)
  v_namespace text := nullif(p_namespace, '');   -- the filter (when no queue is named)
  v_task text := nullif(p_task, '');
  v_queue_ids uuid[];
  v_unregistered uuid[];                          -- those of v_queue_ids the group has not registered on
  v_paused bool;                                  -- pop maintenance
  v_specific uuid;                                -- the named partition's id
  v_max_partitions int;
  v_candidates uuid[];
  v_claimed uuid[];
  v_lease_id uuid;
BEGIN
  PERFORM queen_internal.check_at_least('batch', p_batch, 1);
  PERFORM queen_internal.check_at_least('partitions', p_partitions, 1);
  IF v_queue IS NOT NULL THEN
    v_namespace := NULL; v_task := NULL;
  ELSIF v_namespace IS NOT NULL OR v_task IS NOT NULL THEN
    v_partition := NULL;
  ELSE
    RAISE EXCEPTION 'queue or namespace/task is required' USING ERRCODE = '22023';
  END IF;

  -- 0. The queues (the named one, else the filter's, in id order), those the group has not registered on, and
  --    pop maintenance (read as queen.get_system_flag('pop_maintenance') reads it): nothing to hand out under it.
  --    Two statements, so that each has one plan probing its own index.
  IF v_queue IS NOT NULL THEN
    SELECT array_agg(q.id), array_agg(q.id) FILTER (WHERE g.queue_id IS NULL),
           coalesce((SELECT (s.value ->> 'enabled')::bool FROM queen.system_state s WHERE s.key = 'pop_maintenance'), false)
      INTO v_queue_ids, v_unregistered, v_paused
      FROM queen.queues q
      LEFT JOIN queen.consumer_groups g ON g.queue_id = q.id AND g.consumer_group = v_group
     WHERE q.tenant = v_tenant AND q.name = v_queue;
  ELSE
    SELECT array_agg(q.id ORDER BY q.id), array_agg(q.id ORDER BY q.id) FILTER (WHERE g.queue_id IS NULL),
           coalesce((SELECT (s.value ->> 'enabled')::bool FROM queen.system_state s WHERE s.key = 'pop_maintenance'), false)
      INTO v_queue_ids, v_unregistered, v_paused
      FROM queen.queues q
      LEFT JOIN queen.consumer_groups g ON g.queue_id = q.id AND g.consumer_group = v_group
     WHERE q.tenant = v_tenant
       AND (v_namespace IS NULL OR q.namespace = v_namespace) AND (v_task IS NULL OR q.task = v_task);
  END IF;
  IF v_queue_ids IS NULL OR v_paused THEN
    RETURN;
  END IF;
  IF v_partition IS NOT NULL THEN
    SELECT p.id INTO v_specific FROM queen.partitions p WHERE p.queue_id = v_queue_ids[1] AND p.name = v_partition;
  END IF;
  v_max_partitions := CASE WHEN v_partition IS NULL THEN p_partitions ELSE 1 END;

  -- 1. A named group's first pop stores its start point.
  IF v_group <> queen_internal.queue_mode_group() THEN
    PERFORM queen_internal.pop_record_start_point(v_tenant, v_group, v_queue_ids, v_partition, v_specific, v_namespace,
                                         v_task, p_subscription_mode, p_subscription_from, v_now);
  END IF;

  -- 2. Cursor rows. A group's first wildcard or filter pop on a queue registers it there
  --    (cursor rows on every partition at its start point; partitions created later get
  --    theirs from the push that creates them). The specific route only needs the row
  --    of its partition.
  IF v_partition IS NULL THEN
    IF v_unregistered IS NOT NULL THEN
      PERFORM queen_internal.register_consumer_group(u.queue_id, v_group, v_namespace, v_task, v_tenant)
         FROM unnest(v_unregistered) AS u(queue_id)
        ORDER BY u.queue_id;
    END IF;
  ELSIF v_specific IS NULL THEN
    RETURN;
  ELSIF NOT EXISTS (SELECT 1 FROM queen.consumers c WHERE c.partition_id = v_specific AND c.consumer_group = v_group) THEN
    PERFORM queen_internal.create_cursors(ARRAY[v_specific], v_group);
  END IF;

  -- 3. Candidates from the group's pending cursor rows, 4. claim some.
  v_candidates := queen_internal.pop_candidates(v_queue_ids, v_specific, v_group, greatest(64, 4 * v_max_partitions), v_now);
  IF cardinality(v_candidates) = 0 THEN
    RETURN;
  END IF;
  v_claimed := queen_internal.pop_claim_partitions(v_candidates, v_group, v_max_partitions, v_now);
  IF cardinality(v_claimed) = 0 THEN
    RETURN;
  END IF;

  -- 5. Up to p_batch messages of the claimed partitions in claim order then seq, leased under one new lease id
  --    (with p_auto_ack no lease: the cursor moves past them instead).
  v_lease_id := CASE WHEN p_auto_ack THEN NULL ELSE queen_internal.uuid_v7() END;
  RETURN QUERY
  WITH claimed AS (
    SELECT u.partition_id, u.claim_rank, c.cursor_seq, c.retry_count, p.name::text AS partition_name,
           q.name::text AS queue_name, q.delayed_processing,
           CASE WHEN q.lease_time = 0 THEN 60 ELSE q.lease_time END AS lease_seconds
      FROM unnest(v_claimed) WITH ORDINALITY AS u(partition_id, claim_rank)
      JOIN queen.consumers c ON c.partition_id = u.partition_id AND c.consumer_group = v_group
      -- probes of the keys, whatever plan a connection cached while the tables were small (a join could walk
      -- every partition)
      CROSS JOIN LATERAL (SELECT p.name, p.queue_id FROM queen.partitions p WHERE p.id = u.partition_id LIMIT 1) p
      CROSS JOIN LATERAL (SELECT q.name, q.delayed_processing, q.lease_time FROM queen.queues q
                           WHERE q.id = p.queue_id LIMIT 1) q
     WHERE c.partition_id = ANY (v_claimed)
  ), picked AS (
    SELECT cl.partition_id, cl.partition_name, cl.queue_name, cl.retry_count, cl.lease_seconds,
           m.seq, m.message_id AS id, m.transaction_id, m.trace_id, m.payload, m.producer_sub,
           m.is_encrypted, m.created_at,
           row_number() OVER (ORDER BY cl.claim_rank, m.seq) AS position
      FROM claimed cl
      CROSS JOIN LATERAL (
        SELECT m.* FROM queen_internal.segment_messages(cl.partition_id, cl.cursor_seq, p_batch) m
         WHERE cl.delayed_processing = 0 OR m.created_at <= v_now - cl.delayed_processing * interval '1 second') m
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

  -- autoAck consumed its partitions up to their last message: settle them.
  IF p_auto_ack THEN
    PERFORM queen_internal.settle_drained(v_group, ARRAY(
      SELECT c.partition_id FROM queen.consumers c
       CROSS JOIN LATERAL (SELECT p.last_seq FROM queen.partitions p WHERE p.id = c.partition_id LIMIT 1) p
       WHERE c.partition_id = ANY (v_claimed) AND c.consumer_group = v_group AND c.cursor_seq >= p.last_seq));
  END IF;
END;
$function$;

COMMENT ON FUNCTION queen.pop_messages(p_queue text, p_partition text, p_group text, p_batch integer, p_partitions integer, p_auto_ack boolean, p_subscription_mode text, p_subscription_from text, p_namespace text, p_task text, p_tenant text, p_now timestamp with time zone) IS 'Claims up to p_partitions partitions (specific partition, wildcard, or namespace/task filter) of the queues of tenant p_tenant ('''' = default) for group p_group (null/__QUEUE_MODE__ = queue mode) and returns up to p_batch messages in claim order then seq, all under one new lease id (null with p_auto_ack, which moves the cursor instead). Claim order: queue priority, then among the 64 least recently claimed free pending partitions the oldest waiting message. Reads the group''s pending cursor rows (a bounded prefix), never a scan of the queue''s partitions. Honors leases, retryDelay, windowBuffer, delayedProcessing, subscription modes and pop maintenance, all judged at p_now (null = now()). No rows = nothing deliverable. 22023 on batch/partitions < 1 or no queue/filter.';
GRANT EXECUTE ON FUNCTION queen.pop_messages(p_queue text, p_partition text, p_group text, p_batch integer, p_partitions integer, p_auto_ack boolean, p_subscription_mode text, p_subscription_from text, p_namespace text, p_task text, p_tenant text, p_now timestamp with time zone) TO queen_admin, queen_broker;
