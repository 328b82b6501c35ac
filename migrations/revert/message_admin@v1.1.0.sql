-- Revert queen:message_admin from pg (back to message_admin@v0.9.0: the pre-release functions, owned by the reverting user)

BEGIN;

SET LOCAL check_function_bodies = off;

DROP FUNCTION
  queen_internal.message_group_state(queen.consumers,bigint,timestamp with time zone),
  queen_internal.message_delivery(uuid,uuid,bigint,timestamp with time zone),
  queen_internal.partitions_mode(uuid[]),
  queen.get_message(uuid,text,text),
  queen.delete_message(uuid,text,text),
  queen.clear_queue(text,text,text),
  queen.list_partitions(text,integer,integer,text),
  queen.dead_letter_message(uuid,text,text,text,text);

CREATE OR REPLACE FUNCTION queen.message_group_state(c queen.consumers, p_seq bigint, p_now timestamp with time zone)
 RETURNS text
 LANGUAGE sql
 STABLE
AS $function$
  SELECT CASE WHEN c.cursor_seq >= p_seq THEN 'completed'
              WHEN c.lease_id IS NOT NULL AND c.lease_expires_at > p_now AND p_seq <= c.lease_max_seq THEN 'processing'
              ELSE 'pending' END
$function$;
COMMENT ON FUNCTION queen.message_group_state(queen.consumers,bigint,timestamp with time zone) IS
  'completed / processing / pending: the message at p_seq as the cursor row c sees it at p_now.';

CREATE OR REPLACE FUNCTION queen.message_delivery(p_partition_id uuid, p_message_id uuid, p_seq bigint, p_now timestamp with time zone)
 RETURNS TABLE(status text, queue_status text, consumed_by integer, total_groups integer, lease_expires_at timestamp with time zone, dead_letters integer)
 LANGUAGE sql
 STABLE
AS $function$
  WITH g AS (
    SELECT c.consumer_group, queen.message_group_state(c, p_seq, p_now) AS state,
           CASE WHEN queen.message_group_state(c, p_seq, p_now) = 'processing' THEN c.lease_expires_at END AS lease_at
      FROM queen.consumers c WHERE c.partition_id = p_partition_id
  ), d AS (
    SELECT count(*)::int AS n, bool_or(x.consumer_group = '__QUEUE_MODE__') AS queue_mode
      FROM queen.dlq x WHERE x.message_id = p_message_id
  )
  SELECT CASE WHEN d.n > 0 THEN 'dead_letter'
              WHEN count(g.*) > 0 AND bool_and(g.state = 'completed') THEN 'completed'
              WHEN bool_or(g.state = 'processing') THEN 'processing'
              ELSE 'pending' END,
         CASE WHEN coalesce(d.queue_mode, false) THEN 'dead_letter'
              ELSE max(g.state) FILTER (WHERE g.consumer_group = '__QUEUE_MODE__') END,
         (count(*) FILTER (WHERE g.consumer_group <> '__QUEUE_MODE__' AND g.state = 'completed'))::int,
         (count(*) FILTER (WHERE g.consumer_group <> '__QUEUE_MODE__'))::int,
         max(g.lease_at),
         d.n
    FROM d LEFT JOIN g ON true
   GROUP BY d.n, d.queue_mode
$function$;
COMMENT ON FUNCTION queen.message_delivery(uuid,uuid,bigint,timestamp with time zone) IS
  'Delivery state of one message: status (dead_letter if any group dead-lettered it, completed once every cursor of the partition passed it, processing under a live lease, else pending), queue_status (the __QUEUE_MODE__ group''s, null without one), consumed_by/total_groups (named groups), the latest live lease expiry, the DLQ entry count.';

CREATE OR REPLACE FUNCTION queen.partitions_mode(p_partition_ids uuid[])
 RETURNS jsonb
 LANGUAGE sql
 STABLE
AS $function$
  SELECT jsonb_build_object('hasQueueMode', coalesce(bool_or(x.g = '__QUEUE_MODE__'), false),
                            'busGroupsCount', count(*) FILTER (WHERE x.g <> '__QUEUE_MODE__'),
                            'type', CASE WHEN bool_or(x.g = '__QUEUE_MODE__') AND bool_or(x.g <> '__QUEUE_MODE__') THEN 'hybrid'
                                         WHEN bool_or(x.g = '__QUEUE_MODE__') THEN 'queue'
                                         WHEN count(*) > 0 THEN 'bus' ELSE 'none' END)
    FROM (SELECT DISTINCT c.consumer_group::text AS g FROM queen.consumers c WHERE c.partition_id = ANY (p_partition_ids)) x
$function$;
COMMENT ON FUNCTION queen.partitions_mode(uuid[]) IS
  '{"hasQueueMode", "busGroupsCount", "type": queue|bus|hybrid|none} of the consumer groups with a cursor on the partitions.';

CREATE OR REPLACE FUNCTION queen.get_message(p_partition_id uuid, p_transaction_id text, p_tenant text)
 RETURNS jsonb
 LANGUAGE sql
 STABLE
AS $function$
  SELECT jsonb_build_object(
           'id', m.id, 'transactionId', m.transaction_id, 'partitionId', m.partition_id,
           'queuePath', q.name || '/' || p.name, 'queue', q.name, 'partition', p.name,
           'namespace', nullif(q.namespace, ''), 'task', nullif(q.task, ''),
           'payload', m.payload, 'status', s.status, 'queueStatus', s.queue_status,
           'busStatus', jsonb_build_object('consumedBy', s.consumed_by, 'totalGroups', s.total_groups),
           'isEncrypted', m.is_encrypted, 'traceId', m.trace_id, 'producerSub', m.producer_sub,
           'createdAt', queen.iso_millis(m.created_at),
           'errorMessage', dl.error_message, 'retryCount', dl.retry_count,
           'leaseExpiresAt', queen.iso_millis(s.lease_expires_at),
           'queueConfig', jsonb_build_object('leaseTime', q.lease_time, 'retryLimit', q.retry_limit,
                                             'retryDelay', q.retry_delay_ms, 'ttl', q.ttl, 'priority', q.priority),
           'mode', queen.partitions_mode(ARRAY[p.id]),
           'consumerGroups', coalesce((
             SELECT jsonb_agg(jsonb_build_object(
                      'name', c.consumer_group, 'consumed', c.cursor_seq >= m.seq,
                      'leaseExpiresAt', CASE WHEN queen.message_group_state(c, m.seq, clock_timestamp()) = 'processing'
                                             THEN queen.iso_millis(c.lease_expires_at) END)
                      ORDER BY c.consumer_group)
               FROM queen.consumers c WHERE c.partition_id = m.partition_id), '[]'::jsonb))
    FROM queen.messages m
    JOIN queen.partitions p ON p.id = m.partition_id
    JOIN queen.queues q ON q.id = p.queue_id AND q.tenant = queen.tenant_arg(p_tenant)
    CROSS JOIN LATERAL queen.message_delivery(m.partition_id, m.id, m.seq, clock_timestamp()) s
    LEFT JOIN LATERAL (SELECT d.error_message, d.retry_count FROM queen.dlq d WHERE d.message_id = m.id
                        ORDER BY d.failed_at DESC LIMIT 1) dl ON true
   WHERE m.partition_id = p_partition_id AND m.transaction_id = p_transaction_id
$function$;
COMMENT ON FUNCTION queen.get_message(uuid,text,text) IS
  'One message of tenant p_tenant with its payload as stored, delivery state (see message_delivery), latest DLQ error and retry count (null when not dead-lettered), queueConfig {leaseTime, retryLimit, retryDelay, ttl, priority}, mode and consumerGroups [{name, consumed, leaseExpiresAt}]; null when there is no such message.';

CREATE OR REPLACE FUNCTION queen.delete_message(p_partition_id uuid, p_transaction_id text, p_tenant text)
 RETURNS boolean
 LANGUAGE plpgsql
AS $function$
DECLARE
  v_found bool := false;
  v_count int;
BEGIN
  IF NOT EXISTS (SELECT 1 FROM queen.partitions p JOIN queen.queues q ON q.id = p.queue_id
                  WHERE p.id = p_partition_id AND q.tenant = queen.tenant_arg(p_tenant)) THEN
    RETURN false;
  END IF;
  DELETE FROM queen.messages m WHERE m.partition_id = p_partition_id AND m.transaction_id = p_transaction_id;
  GET DIAGNOSTICS v_count = ROW_COUNT;
  v_found := v_count > 0;
  DELETE FROM queen.dlq d WHERE d.partition_id = p_partition_id AND d.transaction_id = p_transaction_id;
  GET DIAGNOSTICS v_count = ROW_COUNT;
  v_found := v_found OR v_count > 0;
  DELETE FROM queen.dedup_tombstones t WHERE t.partition_id = p_partition_id AND t.transaction_id = p_transaction_id;
  RETURN v_found;
END;
$function$;
COMMENT ON FUNCTION queen.delete_message(uuid,text,text) IS
  'Deletes the message (p_partition_id, p_transaction_id) of tenant p_tenant with its traces, its DLQ entries of every group and any dedup tombstone of the key (the transactionId is accepted again at once). True when a message or a DLQ entry existed.';

CREATE OR REPLACE FUNCTION queen.clear_queue(p_queue text, p_partition text, p_tenant text)
 RETURNS bigint
 LANGUAGE plpgsql
AS $function$
DECLARE
  v_queue_id uuid;
  v_partition_ids uuid[];
  v_deleted bigint;
BEGIN
  IF p_queue IS NULL OR p_queue = '' THEN
    RAISE EXCEPTION 'queue is required' USING ERRCODE = '22023';
  END IF;
  SELECT q.id INTO v_queue_id FROM queen.queues q WHERE q.tenant = queen.tenant_arg(p_tenant) AND q.name = p_queue;
  IF v_queue_id IS NULL THEN
    RETURN NULL;
  END IF;
  -- the partition rows, from under concurrent pushes (push's lock order)
  SELECT array_agg(x.id) INTO v_partition_ids
    FROM (SELECT p.id FROM queen.partitions p
           WHERE p.queue_id = v_queue_id AND (p_partition IS NULL OR p.name = p_partition)
           ORDER BY p.id FOR UPDATE) x;
  IF v_partition_ids IS NULL THEN
    RETURN CASE WHEN p_partition IS NULL THEN 0 END;
  END IF;
  DELETE FROM queen.messages m WHERE m.partition_id = ANY (v_partition_ids);
  GET DIAGNOSTICS v_deleted = ROW_COUNT;
  DELETE FROM queen.dlq d WHERE d.partition_id = ANY (v_partition_ids);
  DELETE FROM queen.dedup_tombstones t WHERE t.partition_id = ANY (v_partition_ids);
  UPDATE queen.consumers c
     SET lease_id = NULL, lease_expires_at = NULL, lease_count = 0, lease_acked = 0, pending = true
   WHERE c.partition_id = ANY (v_partition_ids) AND c.lease_id IS NOT NULL;
  RETURN v_deleted;
END;
$function$;
COMMENT ON FUNCTION queen.clear_queue(text,text,text) IS
  'Deletes every message of queue p_queue of tenant p_tenant (only partition p_partition when given) with their traces, DLQ entries and dedup tombstones, and releases the leases of those partitions; the queue, its options, partitions and cursors stay. Returns the number of messages deleted, null when the queue or the named partition does not exist. 22023 on a missing queue name.';

CREATE OR REPLACE FUNCTION queen.list_partitions(p_queue text, p_limit integer, p_offset integer, p_tenant text)
 RETURNS jsonb
 LANGUAGE plpgsql
 STABLE
AS $function$
DECLARE
  v_result jsonb;
BEGIN
  PERFORM queen.check_at_least('limit', p_limit, 1);
  PERFORM queen.check_at_least('offset', p_offset, 0);
  SELECT jsonb_build_object('partitions', coalesce(jsonb_agg(x.item ORDER BY x.queue_name, x.name), '[]'::jsonb))
    INTO v_result
    FROM (SELECT q.name AS queue_name, p.name, jsonb_build_object(
                 'id', p.id, 'name', p.name, 'queue', q.name, 'createdAt', queen.iso_millis(p.created_at),
                 'messages', jsonb_build_object('total', p.last_seq,
                                                'pending', p.last_seq - coalesce(c.min_cursor, 0))) AS item
            FROM queen.queues q
            JOIN queen.partitions p ON p.queue_id = q.id
            LEFT JOIN LATERAL (SELECT min(least(c.cursor_seq, p.last_seq)) AS min_cursor
                                 FROM queen.consumers c WHERE c.partition_id = p.id) c ON true
           WHERE q.tenant = queen.tenant_arg(p_tenant) AND (p_queue IS NULL OR q.name = p_queue)
           ORDER BY q.name, p.name
           LIMIT p_limit OFFSET p_offset) x;
  RETURN v_result;
END;
$function$;
COMMENT ON FUNCTION queen.list_partitions(text,integer,integer,text) IS
  'Partitions of tenant p_tenant (of queue p_queue when given), by queue then name, paged: {"partitions": [{id, name, queue, createdAt, messages: {total (messages ever stored), pending (not yet consumed by the slowest group)}}]}. 22023 on limit < 1 or offset < 0.';

CREATE OR REPLACE FUNCTION queen.dead_letter_message(p_partition_id uuid, p_transaction_id text, p_group text, p_error text, p_tenant text)
 RETURNS boolean
 LANGUAGE plpgsql
AS $function$
DECLARE
  v_seq bigint;
BEGIN
  IF queen.name_problem(p_group) IS NOT NULL THEN
    RAISE EXCEPTION 'consumerGroup %', queen.name_problem(p_group) USING ERRCODE = '22023';
  END IF;
  SELECT m.seq INTO v_seq
    FROM queen.messages m
    JOIN queen.partitions p ON p.id = m.partition_id
    JOIN queen.queues q ON q.id = p.queue_id AND q.tenant = queen.tenant_arg(p_tenant)
   WHERE m.partition_id = p_partition_id AND m.transaction_id = p_transaction_id;
  IF v_seq IS NULL THEN
    RETURN false;
  END IF;
  PERFORM queen.dead_letter(p_partition_id, v_seq, coalesce(p_group, '__QUEUE_MODE__'),
                            coalesce(p_error, 'Moved to the DLQ by an operator'), 0);
  RETURN true;
END;
$function$;
COMMENT ON FUNCTION queen.dead_letter_message(uuid,text,text,text,text) IS
  'Records a DLQ entry for the message (p_partition_id, p_transaction_id) of tenant p_tenant and group p_group (default __QUEUE_MODE__) with error p_error and retry count 0; the cursor does not move. False when there is no such message. 22023 on an invalid group name.';

COMMIT;
