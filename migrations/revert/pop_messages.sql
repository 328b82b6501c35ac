-- Revert queen:pop_messages from pg (back to pop_messages@v1.0.0: release 1.0.0, same owner and grants)
-- queen.pop_messages gets its 1.0.0 body back, and the two helpers release 1.1.0 folded into it return with their
-- 1.0.0 bodies: pop_queue_ids (the queues) and pop_lease_messages (read and lease).

BEGIN;

SET LOCAL ROLE queen_owner;  -- the objects' owner; PUBLIC gets no EXECUTE on the helpers (internal_schema)

CREATE OR REPLACE FUNCTION queen_internal.pop_queue_ids(p_tenant text, p_queue text, p_namespace text, p_task text)
 RETURNS uuid[]
 LANGUAGE plpgsql
 STABLE
AS $function$
BEGIN
  IF p_queue IS NOT NULL THEN
    RETURN (SELECT array_agg(q.id) FROM queen.queues q WHERE q.tenant = p_tenant AND q.name = p_queue);
  END IF;
  RETURN (SELECT array_agg(q.id ORDER BY q.id)
            FROM queen.queues q
           WHERE q.tenant = p_tenant
             AND (p_namespace IS NULL OR q.namespace = p_namespace) AND (p_task IS NULL OR q.task = p_task));
END;
$function$;
COMMENT ON FUNCTION queen_internal.pop_queue_ids(text,text,text,text) IS
  'Internal to pop_messages: ids of the queue p_queue of tenant p_tenant, else of the queues matching the namespace/task filter; null when none.';

CREATE OR REPLACE FUNCTION queen_internal.pop_lease_messages(p_claimed uuid[], p_group text, p_batch integer, p_auto_ack boolean, p_lease_id uuid, p_now timestamp with time zone)
 RETURNS TABLE(lease_id uuid, queue_name text, partition_name text, partition_id uuid, message_id uuid, transaction_id text, trace_id uuid, payload jsonb, producer_sub text, is_encrypted boolean, created_at timestamp with time zone, retry_count integer)
 LANGUAGE plpgsql
AS $function$
#variable_conflict use_column
BEGIN
  RETURN QUERY
  WITH claimed AS (
    SELECT u.partition_id, u.claim_rank, c.cursor_seq, c.retry_count, p.name::text AS partition_name,
           q.name::text AS queue_name, q.delayed_processing,
           CASE WHEN q.lease_time = 0 THEN 60 ELSE q.lease_time END AS lease_seconds
      FROM unnest(p_claimed) WITH ORDINALITY AS u(partition_id, claim_rank)
      JOIN queen.consumers c ON c.partition_id = u.partition_id AND c.consumer_group = p_group
      JOIN queen.partitions p ON p.id = u.partition_id
      JOIN queen.queues q ON q.id = p.queue_id
     WHERE c.partition_id = ANY (p_claimed)
  ), picked AS (
    SELECT cl.partition_id, cl.partition_name, cl.queue_name, cl.retry_count, cl.lease_seconds,
           m.seq, m.id, m.transaction_id, m.trace_id, m.payload, m.producer_sub, m.is_encrypted, m.created_at,
           row_number() OVER (ORDER BY cl.claim_rank, m.seq) AS position
      FROM claimed cl
      CROSS JOIN LATERAL (
        SELECT m.* FROM queen.messages m
         WHERE m.partition_id = cl.partition_id AND m.seq > cl.cursor_seq
           AND (cl.delayed_processing = 0 OR m.created_at <= p_now - cl.delayed_processing * interval '1 second')
         ORDER BY m.seq
         LIMIT p_batch) m
  ), delivered AS (
    SELECT * FROM picked WHERE picked.position <= p_batch
  ), per_partition AS (
    SELECT d.partition_id, count(*)::int AS n, max(d.seq) AS max_seq, max(d.lease_seconds) AS lease_seconds
      FROM delivered d GROUP BY d.partition_id
  ), updated AS (
    UPDATE queen.consumers c
       SET lease_id = p_lease_id,
           lease_expires_at = CASE WHEN p_auto_ack THEN NULL ELSE p_now + pp.lease_seconds * interval '1 second' END,
           lease_count = CASE WHEN p_auto_ack THEN 0 ELSE pp.n END,
           lease_acked = 0,
           lease_max_seq = CASE WHEN p_auto_ack THEN 0 ELSE pp.max_seq END,
           cursor_seq = CASE WHEN p_auto_ack THEN pp.max_seq ELSE c.cursor_seq END,
           total_consumed = c.total_consumed + CASE WHEN p_auto_ack THEN pp.n ELSE 0 END,
           last_consumed_at = CASE WHEN p_auto_ack THEN p_now ELSE c.last_consumed_at END,
           last_claimed_at = p_now,
           available_at = NULL
      FROM per_partition pp
     WHERE c.partition_id = pp.partition_id AND c.consumer_group = p_group
       AND c.partition_id = ANY (p_claimed)  -- lets the planner probe the primary key
    RETURNING c.partition_id
  )
  SELECT p_lease_id, d.queue_name, d.partition_name, d.partition_id, d.id, d.transaction_id, d.trace_id,
         d.payload, d.producer_sub, d.is_encrypted, d.created_at, d.retry_count
    FROM delivered d
   ORDER BY d.position;

  -- autoAck consumed its partitions up to their last message: settle them.
  IF p_auto_ack THEN
    PERFORM queen_internal.settle_drained(p_group, ARRAY(
      SELECT c.partition_id FROM queen.consumers c JOIN queen.partitions p ON p.id = c.partition_id
       WHERE c.partition_id = ANY (p_claimed) AND c.consumer_group = p_group AND c.cursor_seq >= p.last_seq));
  END IF;
END;
$function$;
COMMENT ON FUNCTION queen_internal.pop_lease_messages(uuid[],text,integer,boolean,uuid,timestamp with time zone) IS
  'Internal to pop_messages: up to p_batch messages of the claimed partitions in claim order then seq, leased under p_lease_id (with p_auto_ack: the cursor moves past them instead and drained partitions are settled).';

CREATE OR REPLACE FUNCTION queen.pop_messages(p_queue text, p_partition text, p_group text, p_batch integer, p_partitions integer, p_auto_ack boolean, p_subscription_mode text, p_subscription_from text, p_namespace text, p_task text, p_tenant text, p_now timestamp with time zone DEFAULT NULL::timestamp with time zone)
 RETURNS TABLE(lease_id uuid, queue_name text, partition_name text, partition_id uuid, message_id uuid, transaction_id text, trace_id uuid, payload jsonb, producer_sub text, is_encrypted boolean, created_at timestamp with time zone, retry_count integer)
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO 'pg_catalog', 'queen', 'queen_internal', 'pg_temp'
 SET plan_cache_mode TO 'force_generic_plan'
 SET enable_seqscan TO 'off'
 SET jit TO 'off'
AS $function$
#variable_conflict use_column
DECLARE
  v_now timestamptz := coalesce(p_now, now());
  v_tenant text := queen_internal.tenant_arg(p_tenant);
  v_group text := coalesce(nullif(p_group, ''), '__QUEUE_MODE__');
  v_queue text := nullif(p_queue, '');
  v_partition text := nullif(p_partition, '');   -- the specific route (a queue, not a filter)
  v_namespace text := nullif(p_namespace, '');   -- the filter (when no queue is named)
  v_task text := nullif(p_task, '');
  v_queue_ids uuid[];
  v_specific uuid;                                -- the named partition's id
  v_max_partitions int;
  v_candidates uuid[];
  v_claimed uuid[];
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

  -- 0. The queues; nothing to hand out under pop maintenance.
  v_queue_ids := queen_internal.pop_queue_ids(v_tenant, v_queue, v_namespace, v_task);
  IF v_queue_ids IS NULL OR queen.get_system_flag('pop_maintenance') THEN
    RETURN;
  END IF;
  IF v_partition IS NOT NULL THEN
    SELECT p.id INTO v_specific FROM queen.partitions p WHERE p.queue_id = v_queue_ids[1] AND p.name = v_partition;
  END IF;
  v_max_partitions := CASE WHEN v_partition IS NULL THEN p_partitions ELSE 1 END;

  -- 1. A named group's first pop stores its start point.
  IF v_group <> '__QUEUE_MODE__' THEN
    PERFORM queen_internal.pop_record_start_point(v_tenant, v_group, v_queue_ids, v_partition, v_specific, v_namespace,
                                         v_task, p_subscription_mode, p_subscription_from, v_now);
  END IF;

  -- 2. Cursor rows. A group's first wildcard or filter pop on a queue registers it there
  --    (cursor rows on every partition at its start point; partitions created later get
  --    theirs from the push that creates them). The specific route only needs the row
  --    of its partition.
  IF v_partition IS NULL THEN
    PERFORM queen_internal.register_consumer_group(u.queue_id, v_group, v_namespace, v_task, v_tenant)
       FROM unnest(v_queue_ids) AS u(queue_id)
      WHERE NOT EXISTS (SELECT 1 FROM queen.consumer_groups g
                         WHERE g.queue_id = u.queue_id AND g.consumer_group = v_group)
      ORDER BY u.queue_id;
  ELSIF v_specific IS NULL THEN
    RETURN;
  ELSIF NOT EXISTS (SELECT 1 FROM queen.consumers c WHERE c.partition_id = v_specific AND c.consumer_group = v_group) THEN
    PERFORM queen_internal.create_cursors(ARRAY[v_specific], v_group);
  END IF;

  -- 3. Candidates from the group's pending cursor rows, 4. claim some, 5. lease their messages.
  v_candidates := queen_internal.pop_candidates(v_queue_ids, v_specific, v_group, greatest(64, 4 * v_max_partitions), v_now);
  IF cardinality(v_candidates) = 0 THEN
    RETURN;
  END IF;
  v_claimed := queen_internal.pop_claim_partitions(v_candidates, v_group, v_max_partitions, v_now);
  IF cardinality(v_claimed) = 0 THEN
    RETURN;
  END IF;
  RETURN QUERY
  SELECT * FROM queen_internal.pop_lease_messages(v_claimed, v_group, p_batch, p_auto_ack,
                                         CASE WHEN p_auto_ack THEN NULL ELSE queen_internal.uuid_v7() END, v_now);
END;
$function$;
COMMENT ON FUNCTION queen.pop_messages(text,text,text,integer,integer,boolean,text,text,text,text,text,timestamp with time zone) IS
  'Claims up to p_partitions partitions (specific partition, wildcard, or namespace/task filter) of the queues of tenant p_tenant ('''' = default) for group p_group (null/__QUEUE_MODE__ = queue mode) and returns up to p_batch messages in claim order then seq, all under one new lease id (null with p_auto_ack, which moves the cursor instead). Claim order: queue priority, then among the 64 least recently claimed free pending partitions the oldest waiting message. Reads the group''s pending cursor rows (a bounded prefix), never a scan of the queue''s partitions. Honors leases, retryDelay, windowBuffer, delayedProcessing, subscription modes and pop maintenance, all judged at p_now (null = now()). No rows = nothing deliverable. 22023 on batch/partitions < 1 or no queue/filter.';

RESET ROLE;

COMMIT;
