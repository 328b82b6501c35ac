-- Revert queen:listings_bounded from pg (back to listings_bounded@v0.9.0: the pre-release functions, owned by the reverting user)

BEGIN;

SET LOCAL check_function_bodies = off;

DROP FUNCTION
  queen_internal.partition_seq_at(uuid,bigint,timestamp with time zone),
  queen.list_messages(text,text,text,text,text,timestamp with time zone,timestamp with time zone,integer,integer,text),
  queen.traces_by_name(text,integer,integer,text,bigint);

CREATE OR REPLACE FUNCTION queen.partition_seq_at(p_partition_id uuid, p_last_seq bigint, p_at timestamp with time zone)
 RETURNS bigint
 LANGUAGE plpgsql
 STABLE
AS $function$
DECLARE
  v_lo bigint := 0;
  v_hi bigint := coalesce(p_last_seq, 0);
  v_mid bigint;
  v_seq bigint;
  v_at timestamptz;
BEGIN
  WHILE v_lo < v_hi LOOP
    v_mid := v_lo + (v_hi - v_lo + 1) / 2;
    SELECT m.seq, m.created_at INTO v_seq, v_at
      FROM queen.messages m WHERE m.partition_id = p_partition_id AND m.seq >= v_mid ORDER BY m.seq LIMIT 1;
    IF v_seq IS NULL OR v_at > p_at THEN
      v_hi := v_mid - 1;
    ELSE
      v_lo := v_seq;
    END IF;
  END LOOP;
  RETURN v_lo;
END;
$function$;
COMMENT ON FUNCTION queen.partition_seq_at(uuid,bigint,timestamp with time zone) IS
  'The largest seq of the partition created at or before p_at (0 when none), in about log2(p_last_seq) primary-key probes.';

CREATE OR REPLACE FUNCTION queen.list_messages(p_queue text, p_partition text, p_namespace text, p_task text, p_status text, p_from timestamp with time zone, p_to timestamp with time zone, p_limit integer, p_offset integer, p_tenant text)
 RETURNS jsonb
 LANGUAGE plpgsql
 STABLE
AS $function$
DECLARE
  v_now timestamptz := clock_timestamp();
  v_to timestamptz := coalesce(p_to, date_trunc('minute', now()) + interval '1 minute');
  v_from timestamptz := coalesce(p_from, now() - interval '1 hour');
  v_take int;
  v_partitions uuid[];
  v_messages jsonb;
BEGIN
  PERFORM queen.check_at_least('limit', p_limit, 1);
  PERFORM queen.check_at_least('offset', p_offset, 0);
  IF p_status IS NOT NULL AND p_status NOT IN ('pending', 'processing', 'completed', 'dead_letter') THEN
    RAISE EXCEPTION 'status must be pending, processing, completed or dead_letter' USING ERRCODE = '22023';
  END IF;
  v_take := p_limit + p_offset;
  SELECT array_agg(p.id) INTO v_partitions
    FROM queen.queues q JOIN queen.partitions p ON p.queue_id = q.id
   WHERE q.tenant = queen.tenant_arg(p_tenant)
     AND (p_queue IS NULL OR q.name = p_queue) AND (p_partition IS NULL OR p.name = p_partition)
     AND (p_namespace IS NULL OR q.namespace = p_namespace) AND (p_task IS NULL OR q.task = p_task);
  WITH ranges AS (
    SELECT p.id, p.name, q.name AS queue_name, q.namespace, q.task, q.priority,
           CASE WHEN p_status IS NULL THEN 1
                ELSE queen.partition_seq_at(p.id, p.last_seq, v_from - interval '1 microsecond') + 1 END AS low_seq,
           CASE WHEN p.last_message_at <= v_to THEN p.last_seq
                ELSE queen.partition_seq_at(p.id, p.last_seq, v_to) END AS high_seq,
           p.last_message_at, c.min_cursor, c.max_lease_seq
      FROM queen.partitions p
      JOIN queen.queues q ON q.id = p.queue_id
      LEFT JOIN LATERAL (SELECT min(x.cursor_seq) AS min_cursor,
                                max(x.lease_max_seq) FILTER (WHERE x.lease_id IS NOT NULL AND x.lease_expires_at > v_now)
                                  AS max_lease_seq
                           FROM queen.consumers x WHERE x.partition_id = p.id) c ON true
     WHERE p.id = ANY (v_partitions) AND p.last_message_at >= v_from
  ), newest AS (
    -- Without a status filter the page's rows lie in the limit + offset partitions
    -- whose newest message of the window is newest: only those are read.
    SELECT r.* FROM ranges r
     ORDER BY CASE WHEN p_status IS NULL THEN
                (SELECT m.created_at FROM queen.messages m WHERE m.partition_id = r.id AND m.seq <= r.high_seq
                  ORDER BY m.seq DESC LIMIT 1) END DESC NULLS LAST
     LIMIT CASE WHEN p_status IS NULL THEN v_take END
  ), narrowed AS (
    SELECT r.*,
           CASE WHEN p_status IN ('pending', 'processing') THEN greatest(r.low_seq, coalesce(r.min_cursor, 0) + 1)
                ELSE r.low_seq END AS lo,
           CASE WHEN p_status = 'completed' THEN least(r.high_seq, coalesce(r.min_cursor, 0))
                WHEN p_status = 'processing' THEN least(r.high_seq, coalesce(r.max_lease_seq, 0))
                ELSE r.high_seq END AS hi
      FROM newest r
  ), candidates AS (
    SELECT n.id AS partition_id, n.name AS partition_name, n.queue_name, n.namespace, n.task, n.priority,
           m.seq, m.id, m.transaction_id, m.trace_id, m.producer_sub, m.created_at
      FROM narrowed n
      CROSS JOIN LATERAL (
        SELECT m.seq, m.id, m.transaction_id, m.trace_id, m.producer_sub, m.created_at
          FROM queen.messages m
         WHERE m.partition_id = n.id AND m.seq BETWEEN n.lo AND n.hi
           AND (p_status IS NULL OR p_status <> 'dead_letter')
           AND (p_status IS NULL
                OR (SELECT s.status FROM queen.message_delivery(n.id, m.id, m.seq, v_now) s) = p_status)
         ORDER BY m.seq DESC
         LIMIT v_take) m
     WHERE m.created_at >= v_from
    UNION ALL
    SELECT n.id, n.name, n.queue_name, n.namespace, n.task, n.priority,
           m.seq, m.id, m.transaction_id, m.trace_id, m.producer_sub, m.created_at
      FROM narrowed n
      CROSS JOIN LATERAL (
        SELECT DISTINCT d.seq FROM queen.dlq d
         WHERE p_status = 'dead_letter' AND d.partition_id = n.id AND d.seq BETWEEN n.lo AND n.hi
         ORDER BY d.seq DESC LIMIT v_take) d
      JOIN queen.messages m ON m.partition_id = n.id AND m.seq = d.seq
     WHERE m.created_at >= v_from
  ), page AS (
    SELECT * FROM candidates c ORDER BY c.created_at DESC, c.id DESC LIMIT p_limit OFFSET p_offset
  )
  SELECT coalesce(jsonb_agg(jsonb_build_object(
           'id', g.id, 'transactionId', g.transaction_id, 'partitionId', g.partition_id,
           'queuePath', g.queue_name || '/' || g.partition_name, 'queue', g.queue_name, 'partition', g.partition_name,
           'namespace', nullif(g.namespace, ''), 'task', nullif(g.task, ''),
           'status', s.status, 'queueStatus', s.queue_status,
           'busStatus', jsonb_build_object('consumedBy', s.consumed_by, 'totalGroups', s.total_groups),
           'traceId', g.trace_id, 'producerSub', g.producer_sub, 'queuePriority', g.priority,
           'createdAt', queen.iso_millis(g.created_at),
           'leaseExpiresAt', queen.iso_millis(s.lease_expires_at)) ORDER BY g.created_at DESC, g.id DESC), '[]'::jsonb)
    INTO v_messages
    FROM page g
    CROSS JOIN LATERAL queen.message_delivery(g.partition_id, g.id, g.seq, v_now) s;
  RETURN jsonb_build_object('messages', v_messages, 'mode', queen.partitions_mode(coalesce(v_partitions, '{}')));
END;
$function$;
COMMENT ON FUNCTION queen.list_messages(text,text,text,text,text,timestamp with time zone,timestamp with time zone,integer,integer,text) IS
  'Messages of tenant p_tenant created in [p_from, p_to] (defaults: now - 1 hour, the next whole minute), newest first, paged, without payloads: {"messages": [{id, transactionId, partitionId, queuePath, queue, partition, namespace, task, status, queueStatus, busStatus: {consumedBy, totalGroups}, traceId, producerSub, queuePriority, createdAt, leaseExpiresAt}], "mode": {hasQueueMode, busGroupsCount, type}}. Limit first: at most limit + offset rows per selected partition read through the primary key, status computed for the page only (docs/limits.md, "Listings"). 22023 on limit < 1, offset < 0 or an unknown status.';

CREATE OR REPLACE FUNCTION queen.traces_by_name(p_trace_name text, p_limit integer, p_offset integer, p_tenant text, p_max_payload_bytes bigint DEFAULT NULL::bigint)
 RETURNS jsonb
 LANGUAGE plpgsql
 STABLE
AS $function$
DECLARE
  v_tenant text := queen.tenant_arg(p_tenant);
  v_budget bigint := coalesce(p_max_payload_bytes, queen.list_max_payload_bytes());
  v_total bigint;
  v_traces jsonb;
BEGIN
  PERFORM queen.check_at_least('limit', p_limit, 1);
  PERFORM queen.check_at_least('offset', p_offset, 0);
  PERFORM queen.check_at_least('maxPayloadBytes', v_budget, 0);
  SELECT count(*) INTO v_total FROM queen.message_traces t
   WHERE t.trace_names @> ARRAY[p_trace_name] AND t.tenant = v_tenant;
  WITH page AS (
    SELECT t.* FROM queen.message_traces t
     WHERE t.trace_names @> ARRAY[p_trace_name] AND t.tenant = v_tenant
     ORDER BY t.created_at DESC, t.id
     LIMIT p_limit OFFSET p_offset
  ), firsts AS (
    SELECT pg.*, m.payload, m.is_encrypted,
           row_number() OVER (PARTITION BY pg.partition_id, pg.transaction_id ORDER BY pg.created_at DESC, pg.id) = 1
             AS first_of_message
      FROM page pg
      JOIN queen.messages m ON m.partition_id = pg.partition_id AND m.transaction_id = pg.transaction_id
  ), sized AS (
    SELECT f.*, sum(CASE WHEN f.first_of_message THEN coalesce(octet_length(f.payload::text), 4) ELSE 0 END)
                  OVER (ORDER BY f.created_at DESC, f.id ROWS UNBOUNDED PRECEDING) AS bytes_so_far
      FROM firsts f
  )
  SELECT coalesce(jsonb_agg(jsonb_build_object(
           'id', s.id, 'transaction_id', s.transaction_id, 'partition_id', s.partition_id,
           'event_type', s.event_type, 'data', s.data, 'consumer_group', s.consumer_group,
           'worker_id', s.worker_id, 'created_at', queen.iso_millis(s.created_at),
           'queue_name', q.name, 'partition_name', p.name,
           'message_payload', CASE WHEN s.first_of_message AND s.bytes_so_far <= v_budget THEN s.payload END,
           'message_encrypted', s.is_encrypted AND s.first_of_message AND s.bytes_so_far <= v_budget,
           'trace_names', to_jsonb(s.trace_names))
           || CASE WHEN s.first_of_message AND s.bytes_so_far <= v_budget THEN '{}'::jsonb
                   ELSE '{"payloadOmitted": true}'::jsonb END
           ORDER BY s.created_at DESC, s.id), '[]'::jsonb)
    INTO v_traces
    FROM sized s
    JOIN queen.partitions p ON p.id = s.partition_id
    JOIN queen.queues q ON q.id = p.queue_id;
  RETURN jsonb_build_object('traces', v_traces, 'total', v_total,
                            'pagination', jsonb_build_object('limit', p_limit, 'offset', p_offset));
END;
$function$;
COMMENT ON FUNCTION queen.traces_by_name(text,integer,integer,text,bigint) IS
  'Traces of tenant p_tenant carrying p_trace_name, newest first, paged: {"traces": [{id, transaction_id, partition_id, event_type, data, consumer_group, worker_id, created_at, queue_name, partition_name, message_payload, message_encrypted, trace_names[, payloadOmitted]}], "total", "pagination": {limit, offset}}. A message''s payload is on its newest trace of the page only, while the page''s payload bytes stay within p_max_payload_bytes (null = list_max_payload_bytes()); other traces carry message_payload null and payloadOmitted true. message_payload is as stored (the broker decrypts it and drops message_encrypted). 22023 on limit < 1, offset < 0 or a negative budget.';

COMMIT;
