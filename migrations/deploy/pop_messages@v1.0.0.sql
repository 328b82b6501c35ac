-- Deploy queen:pop_messages to pg (release 1.0.0, a rework of pop_messages@v0.9.0)
-- Its functions at release 1.0.0: helpers in schema queen_internal, API procedures of schema queen
-- SECURITY DEFINER with a fixed search_path, every one owned by queen_owner (docs/procedures.md, Roles).
-- Written from the catalogue of the 1.0.0 schema (pg_get_functiondef); the pre-release text is in
-- pop_messages@v0.9.0.sql. A database of the pre-release schema upgrades in place: no row is touched.

BEGIN;

-- Bodies may name helpers that a later change of this release moves; each is checked when first called.
SET LOCAL check_function_bodies = off;

DROP FUNCTION
  queen.requested_subscription(text,text,timestamp with time zone),
  queen.subscription_start_at(text,uuid,text,text,text,text),
  queen.start_cursor(uuid,bigint,timestamp with time zone,timestamp with time zone),
  queen.cursor_is_free(uuid,timestamp with time zone,timestamp with time zone,integer,timestamp with time zone),
  queen.create_cursors(uuid[],text,text,text,text),
  queen.register_consumer_group(uuid,text,text,text,text),
  queen.pop_queue_ids(text,text,text,text),
  queen.pop_record_start_point(text,text,uuid[],text,uuid,text,text,text,text,timestamp with time zone),
  queen.pop_candidates(uuid[],uuid,text,integer,timestamp with time zone),
  queen.pop_claim_partitions(uuid[],text,integer,timestamp with time zone),
  queen.pop_lease_messages(uuid[],text,integer,boolean,uuid,timestamp with time zone),
  queen.pop_messages(text,text,text,integer,integer,boolean,text,text,text,text,text,timestamp with time zone);

SET LOCAL ROLE queen_owner;  -- the objects' owner; PUBLIC gets no EXECUTE (internal_schema)

CREATE OR REPLACE FUNCTION queen_internal.requested_subscription(p_mode text, p_from text, p_now timestamp with time zone, OUT mode text, OUT start_at timestamp with time zone)
 RETURNS record
 LANGUAGE plpgsql
 STABLE
AS $function$
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
$function$;
COMMENT ON FUNCTION queen_internal.requested_subscription(text,text,timestamp with time zone) IS
  'Start point requested by pop parameters subscriptionMode/subscriptionFrom: (new, now), (timestamp, t), or nulls for the whole history.';

CREATE OR REPLACE FUNCTION queen_internal.subscription_start_at(p_group text, p_queue_id uuid, p_partition_name text, p_filter_namespace text DEFAULT NULL::text, p_filter_task text DEFAULT NULL::text, p_tenant text DEFAULT ''::text)
 RETURNS timestamp with time zone
 LANGUAGE sql
 STABLE
AS $function$
  SELECT s.start_at
    FROM queen.subscriptions s
   WHERE s.consumer_group = p_group
     AND ((s.queue_id = p_queue_id AND s.partition_name IN (p_partition_name, ''))
          OR (s.queue_id IS NULL AND (p_filter_namespace IS NOT NULL OR p_filter_task IS NOT NULL)
              AND s.tenant = p_tenant AND s.filter_namespace IS NOT DISTINCT FROM p_filter_namespace
              AND s.filter_task IS NOT DISTINCT FROM p_filter_task))
   ORDER BY (s.partition_name <> '') DESC, (s.queue_id IS NOT NULL) DESC
   LIMIT 1
$function$;
COMMENT ON FUNCTION queen_internal.subscription_start_at(text,uuid,text,text,text,text) IS
  'Start time of a named group on a partition it has no cursor on: partition record, else queue record, else namespace/task filter record of tenant p_tenant; null = from the beginning.';

CREATE OR REPLACE FUNCTION queen_internal.start_cursor(p_partition_id uuid, p_last_seq bigint, p_last_message_at timestamp with time zone, p_start_at timestamp with time zone)
 RETURNS bigint
 LANGUAGE sql
 STABLE
AS $function$
  SELECT CASE
    WHEN p_start_at IS NULL THEN 0
    WHEN p_last_message_at IS NULL OR p_last_message_at < p_start_at THEN p_last_seq
    ELSE coalesce((SELECT m.seq FROM queen.messages m
                    WHERE m.partition_id = p_partition_id AND m.created_at < p_start_at
                    ORDER BY m.seq DESC LIMIT 1), 0)
  END
$function$;
COMMENT ON FUNCTION queen_internal.start_cursor(uuid,bigint,timestamp with time zone,timestamp with time zone) IS
  'Initial cursor_seq on a partition for a group starting at p_start_at: seq of the last message created before it; 0 when p_start_at is null.';

CREATE OR REPLACE FUNCTION queen_internal.cursor_is_free(p_lease_id uuid, p_lease_expires_at timestamp with time zone, p_available_at timestamp with time zone, p_retry_delay_ms integer, p_now timestamp with time zone)
 RETURNS boolean
 LANGUAGE sql
 STABLE
AS $function$
  SELECT (p_lease_id IS NULL OR p_lease_expires_at + p_retry_delay_ms * interval '1 millisecond' <= p_now)
     AND (p_available_at IS NULL OR p_available_at <= p_now)
$function$;
COMMENT ON FUNCTION queen_internal.cursor_is_free(uuid,timestamp with time zone,timestamp with time zone,integer,timestamp with time zone) IS
  'True when a cursor row (lease id, lease expiry, retryDelay gate) is claimable at p_now under a queue retryDelay of p_retry_delay_ms.';

CREATE OR REPLACE FUNCTION queen_internal.create_cursors(p_partition_ids uuid[], p_group text, p_filter_namespace text DEFAULT NULL::text, p_filter_task text DEFAULT NULL::text, p_tenant text DEFAULT ''::text)
 RETURNS void
 LANGUAGE sql
AS $function$
  INSERT INTO queen.consumers (partition_id, consumer_group, queue_id, cursor_seq)
  SELECT p.id, p_group, p.queue_id,
         CASE WHEN p_group = '__QUEUE_MODE__' THEN 0
              ELSE queen_internal.start_cursor(p.id, p.last_seq, p.last_message_at,
                                      queen_internal.subscription_start_at(p_group, p.queue_id, p.name, p_filter_namespace,
                                                                  p_filter_task, p_tenant)) END
    FROM queen.partitions p
   WHERE p.id = ANY (p_partition_ids)
   ORDER BY p.id
  ON CONFLICT ON CONSTRAINT consumers_pkey DO NOTHING
$function$;
COMMENT ON FUNCTION queen_internal.create_cursors(uuid[],text,text,text,text) IS
  'Creates the missing cursor rows of a group on the given partitions at its subscription start point (filter records of p_tenant consulted when a filter is given).';

CREATE OR REPLACE FUNCTION queen_internal.register_consumer_group(p_queue_id uuid, p_group text, p_filter_namespace text DEFAULT NULL::text, p_filter_task text DEFAULT NULL::text, p_tenant text DEFAULT ''::text)
 RETURNS void
 LANGUAGE plpgsql
AS $function$
DECLARE
  v_partition_ids uuid[];
BEGIN
  PERFORM 1 FROM queen.queues q WHERE q.id = p_queue_id FOR UPDATE;
  INSERT INTO queen.consumer_groups (queue_id, consumer_group) VALUES (p_queue_id, p_group)
  ON CONFLICT ON CONSTRAINT consumer_groups_pkey DO NOTHING;
  v_partition_ids := ARRAY(SELECT p.id FROM queen.partitions p WHERE p.queue_id = p_queue_id ORDER BY p.id);
  PERFORM queen_internal.create_cursors(v_partition_ids, p_group, p_filter_namespace, p_filter_task, p_tenant);
  PERFORM queen_internal.settle_drained(p_group, v_partition_ids);
END;
$function$;
COMMENT ON FUNCTION queen_internal.register_consumer_group(uuid,text,text,text,text) IS
  'Internal to pop_messages: a group''s first wildcard or filter pop on a queue registers it and creates its cursor rows on every partition at its start point.';

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

CREATE OR REPLACE FUNCTION queen_internal.pop_record_start_point(p_tenant text, p_group text, p_queue_ids uuid[], p_partition text, p_specific uuid, p_namespace text, p_task text, p_mode text, p_from text, p_now timestamp with time zone)
 RETURNS void
 LANGUAGE plpgsql
AS $function$
DECLARE
  v_requested record := queen_internal.requested_subscription(p_mode, p_from, p_now);
  v_is_filter bool := p_namespace IS NOT NULL OR p_task IS NOT NULL;
BEGIN
  IF v_requested.mode IS NULL THEN
    RETURN;
  END IF;
  IF p_partition IS NULL THEN
    IF EXISTS (SELECT 1 FROM unnest(p_queue_ids) AS u(queue_id)
                WHERE EXISTS (SELECT 1 FROM queen.consumers c
                               WHERE c.queue_id = u.queue_id AND c.consumer_group = p_group)) THEN
      RETURN;
    END IF;
  ELSIF EXISTS (SELECT 1 FROM queen.consumers c WHERE c.partition_id = p_specific AND c.consumer_group = p_group) THEN
    RETURN;
  END IF;
  IF v_is_filter THEN
    INSERT INTO queen.subscriptions (tenant, consumer_group, queue_id, partition_name, filter_namespace, filter_task, mode, start_at)
    VALUES (p_tenant, p_group, NULL, '', p_namespace, p_task, v_requested.mode, v_requested.start_at)
    ON CONFLICT ON CONSTRAINT subscriptions_scope_key DO NOTHING;
  ELSE
    INSERT INTO queen.subscriptions (consumer_group, queue_id, partition_name, mode, start_at)
    SELECT p_group, p_queue_ids[1], coalesce(p_partition, ''), v_requested.mode, v_requested.start_at
     WHERE NOT EXISTS (SELECT 1 FROM queen.subscriptions s
                        WHERE s.consumer_group = p_group AND s.queue_id = p_queue_ids[1]
                          AND s.partition_name IN ('', coalesce(p_partition, '')))
    ON CONFLICT ON CONSTRAINT subscriptions_scope_key DO NOTHING;
  END IF;
END;
$function$;
COMMENT ON FUNCTION queen_internal.pop_record_start_point(text,text,uuid[],text,uuid,text,text,text,text,timestamp with time zone) IS
  'Internal to pop_messages: stores the start point a named group''s first pop asks for (subscriptionMode/subscriptionFrom) as a partition, queue or namespace/task record; a group with cursor rows keeps its start point.';

CREATE OR REPLACE FUNCTION queen_internal.pop_candidates(p_queue_ids uuid[], p_specific uuid, p_group text, p_scan integer, p_now timestamp with time zone)
 RETURNS uuid[]
 LANGUAGE plpgsql
AS $function$
DECLARE
  v_candidates uuid[];
  v_drained uuid[];                 -- pending rows found with nothing after their cursor
BEGIN
  SELECT coalesce(array_agg(x.partition_id ORDER BY x.claim_rank) FILTER (WHERE x.next_at IS NOT NULL), '{}'),
         coalesce(array_agg(x.partition_id) FILTER (WHERE x.next_at IS NULL), '{}')
    INTO v_candidates, v_drained
    FROM (
      SELECT w.partition_id, next_message.created_at AS next_at,
             row_number() OVER (ORDER BY w.priority DESC, next_message.created_at, w.partition_id) AS claim_rank
        FROM (
          SELECT c.partition_id, c.cursor_seq, q.priority, q.delayed_processing
            FROM unnest(p_queue_ids) AS u(queue_id)
            JOIN queen.queues q ON q.id = u.queue_id
            CROSS JOIN LATERAL (
             (SELECT c.partition_id, c.cursor_seq, c.last_claimed_at
                FROM queen.consumers c
               WHERE p_specific IS NULL
                 AND c.queue_id = q.id AND c.consumer_group = p_group AND c.pending
                 AND queen_internal.cursor_is_free(c.lease_id, c.lease_expires_at, c.available_at, q.retry_delay_ms, p_now)
                 AND (q.window_buffer = 0
                      OR (SELECT p.last_message_at FROM queen.partitions p WHERE p.id = c.partition_id)
                         <= p_now - q.window_buffer * interval '1 second')
               ORDER BY c.last_claimed_at NULLS FIRST, c.partition_id
               LIMIT p_scan)
              UNION ALL
             (SELECT c.partition_id, c.cursor_seq, c.last_claimed_at
                FROM queen.consumers c
               WHERE c.partition_id = p_specific AND c.consumer_group = p_group AND c.pending
                 AND queen_internal.cursor_is_free(c.lease_id, c.lease_expires_at, c.available_at, q.retry_delay_ms, p_now)
                 AND (q.window_buffer = 0
                      OR (SELECT p.last_message_at FROM queen.partitions p WHERE p.id = c.partition_id)
                         <= p_now - q.window_buffer * interval '1 second'))
            ) c
           ORDER BY q.priority DESC, c.last_claimed_at NULLS FIRST, c.partition_id
           LIMIT p_scan
        ) w
        LEFT JOIN LATERAL (SELECT m.created_at FROM queen.messages m
                            WHERE m.partition_id = w.partition_id AND m.seq > w.cursor_seq
                            ORDER BY m.seq LIMIT 1) next_message ON true
       WHERE next_message.created_at IS NULL OR w.delayed_processing = 0
          OR next_message.created_at <= p_now - w.delayed_processing * interval '1 second'
    ) x;
  IF cardinality(v_drained) > 0 THEN
    PERFORM queen_internal.settle_drained(p_group, v_drained);
  END IF;
  RETURN v_candidates;
END;
$function$;
COMMENT ON FUNCTION queen_internal.pop_candidates(uuid[],uuid,text,integer,timestamp with time zone) IS
  'Internal to pop_messages: claimable pending partitions of group p_group on the queues p_queue_ids (or the partition p_specific) in claim order, from at most p_scan cursor rows per queue; settles the probed rows with nothing to deliver.';

CREATE OR REPLACE FUNCTION queen_internal.pop_claim_partitions(p_candidates uuid[], p_group text, p_max integer, p_now timestamp with time zone)
 RETURNS uuid[]
 LANGUAGE plpgsql
AS $function$
DECLARE
  v_claimed uuid[] := '{}';
  v_partition_id uuid;
BEGIN
  FOREACH v_partition_id IN ARRAY p_candidates LOOP
    EXIT WHEN cardinality(v_claimed) >= p_max;
    PERFORM 1
       FROM queen.consumers c
       JOIN queen.partitions p ON p.id = c.partition_id
       JOIN queen.queues q ON q.id = c.queue_id
      WHERE c.partition_id = v_partition_id AND c.consumer_group = p_group
        AND p.last_seq > c.cursor_seq
        AND queen_internal.cursor_is_free(c.lease_id, c.lease_expires_at, c.available_at, q.retry_delay_ms, p_now)
        FOR UPDATE OF c SKIP LOCKED;
    IF FOUND THEN
      v_claimed := v_claimed || v_partition_id;
    END IF;
  END LOOP;
  RETURN v_claimed;
END;
$function$;
COMMENT ON FUNCTION queen_internal.pop_claim_partitions(uuid[],text,integer,timestamp with time zone) IS
  'Internal to pop_messages: locks (SKIP LOCKED) up to p_max of the candidate cursor rows of group p_group that are still claimable at p_now, in candidate order; returns their partition ids.';

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
