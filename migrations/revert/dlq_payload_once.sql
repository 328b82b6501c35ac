-- Revert queen:dlq_payload_once from pg (back to dlq_payload_once@v0.9.0: the pre-release functions, owned by the reverting user)

BEGIN;

SET LOCAL check_function_bodies = off;

DROP TRIGGER dlq_forget_payloads ON queen.dlq;

DROP FUNCTION
  queen_internal.dead_letter(uuid,bigint,text,text,integer),
  queen.requeue_dead_letters(text,text,text,timestamp with time zone,timestamp with time zone,uuid,text),
  queen_internal.dlq_forget_payloads(),
  queen_internal.list_max_payload_bytes(),
  queen.list_dlq(text,text,text,timestamp with time zone,timestamp with time zone,integer,integer,text,bigint);

CREATE OR REPLACE FUNCTION queen.dead_letter(p_partition_id uuid, p_seq bigint, p_group text, p_error text, p_retry_count integer)
 RETURNS void
 LANGUAGE sql
AS $function$
  SELECT pg_advisory_xact_lock(hashtextextended('queen.dead_letter:' || p_partition_id || ':' || p_seq, 0));
  INSERT INTO queen.dlq_payloads AS x (message_id, partition_id, payload, payload_bytes)
  SELECT m.id, m.partition_id, m.payload, coalesce(octet_length(m.payload::text), 4)
    FROM queen.messages m
   WHERE m.partition_id = p_partition_id AND m.seq = p_seq
  ON CONFLICT (message_id) DO UPDATE SET payload_bytes = x.payload_bytes;
  INSERT INTO queen.dlq AS d (message_id, consumer_group, partition_id, seq, transaction_id, trace_id,
                              producer_sub, is_encrypted, error_message, retry_count, message_created_at, failed_at)
  SELECT m.id, p_group, m.partition_id, m.seq, m.transaction_id, m.trace_id, m.producer_sub,
         m.is_encrypted, p_error, p_retry_count, m.created_at, clock_timestamp()
    FROM queen.messages m
   WHERE m.partition_id = p_partition_id AND m.seq = p_seq
  ON CONFLICT ON CONSTRAINT dlq_pkey DO UPDATE
     SET error_message = EXCLUDED.error_message, retry_count = EXCLUDED.retry_count, failed_at = EXCLUDED.failed_at
$function$;
COMMENT ON FUNCTION queen.dead_letter(uuid,bigint,text,text,integer) IS
  'Dead-letters one message for one consumer group (payload stored once per message in queen.dlq_payloads); a repeat refreshes error, retry count and failure time.';

CREATE OR REPLACE FUNCTION queen.requeue_dead_letters(p_queue text, p_group text, p_partition text, p_from timestamp with time zone, p_to timestamp with time zone, p_message_id uuid, p_tenant text)
 RETURNS jsonb
 LANGUAGE plpgsql
AS $function$
DECLARE
  v_tenant text := queen.tenant_arg(p_tenant);
  v_key_messages uuid[];
  v_key_groups text[];
  v_sub record;
  v_stored_messages uuid[] := '{}';
  v_queues text[] := '{}';
  v_requeued int;
BEGIN
  IF p_queue IS NULL AND p_message_id IS NULL THEN
    RAISE EXCEPTION 'queue is required' USING ERRCODE = '22023';
  END IF;
  SELECT coalesce(array_agg(k.message_id), '{}'), coalesce(array_agg(k.consumer_group), '{}')
    INTO v_key_messages, v_key_groups
    FROM queen.select_dead_letters(p_queue, p_group, p_partition, p_from, p_to, p_message_id,
                                   queen.dlq_admin_max_per_call(), v_tenant) k;
  -- one store_messages call per producer (the producer is per call)
  FOR v_sub IN
    SELECT x.producer_sub,
           jsonb_agg(jsonb_build_object('queue', x.queue_name, 'partition', x.partition_name, 'payload', x.payload,
                                        'transactionId', queen.requeued_transaction_id(x.transaction_id, x.message_id),
                                        'traceId', x.trace_id, 'encrypted', x.is_encrypted) ORDER BY x.failed_at, x.message_id) AS items,
           array_agg(x.message_id ORDER BY x.failed_at, x.message_id) AS message_ids
      FROM (SELECT DISTINCT ON (d.message_id) d.message_id, d.transaction_id, pl.payload, d.trace_id, d.is_encrypted,
                   d.producer_sub, d.failed_at, q.name::text AS queue_name, p.name::text AS partition_name
              FROM queen.dlq d
              JOIN unnest(v_key_messages, v_key_groups) k(message_id, consumer_group)
                ON k.message_id = d.message_id AND k.consumer_group = d.consumer_group
              LEFT JOIN queen.dlq_payloads pl ON pl.message_id = d.message_id
              JOIN queen.partitions p ON p.id = d.partition_id
              JOIN queen.queues q ON q.id = p.queue_id
             ORDER BY d.message_id, d.failed_at) x
     GROUP BY x.producer_sub
  LOOP
    SELECT v_stored_messages || coalesce(array_agg(v_sub.message_ids[r.idx + 1]), '{}'),
           v_queues || coalesce(array_agg(DISTINCT r.queue_name) FILTER (WHERE r.status = 'queued'), '{}')
      INTO v_stored_messages, v_queues
      FROM queen.store_messages(v_sub.items, v_sub.producer_sub, NULL, v_tenant) r
     WHERE r.status IN ('queued', 'duplicate');
  END LOOP;
  DELETE FROM queen.dlq d USING unnest(v_key_messages, v_key_groups) k(message_id, consumer_group)
   WHERE d.message_id = k.message_id AND d.consumer_group = k.consumer_group AND d.message_id = ANY (v_stored_messages);
  GET DIAGNOSTICS v_requeued = ROW_COUNT;
  RETURN jsonb_build_object('requeued', v_requeued,
                            'queues', (SELECT coalesce(jsonb_agg(DISTINCT n), '[]'::jsonb) FROM unnest(v_queues) n));
END;
$function$;
COMMENT ON FUNCTION queen.requeue_dead_letters(text,text,text,timestamp with time zone,timestamp with time zone,uuid,text) IS
  'Requeues up to dlq_admin_max_per_call() DLQ entries of tenant p_tenant matching the filters (queue, group, partition, failed_at window, message id; null = any; queue or message id required), oldest failure first: one new message per dead message in its partition (payload, trace id and producer copied, transactionId requeued_transaction_id()), seen by every group that reads the partition; the entries whose copy was stored (or already existed) are deleted. Returns {"requeued": entries removed, "queues": [queues that received a new message]}. 22023 without queue and message id.';

CREATE OR REPLACE FUNCTION queen.dlq_forget_payloads()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
DECLARE
  v_ids uuid[];
BEGIN
  SELECT array_agg(x.message_id ORDER BY x.message_id) INTO v_ids
    FROM (SELECT p.message_id FROM queen.dlq_payloads p
           WHERE p.message_id IN (SELECT DISTINCT g.message_id FROM gone g)
           ORDER BY p.message_id FOR UPDATE) x;
  IF v_ids IS NOT NULL THEN
    DELETE FROM queen.dlq_payloads p
     WHERE p.message_id = ANY (v_ids)
       AND NOT EXISTS (SELECT 1 FROM queen.dlq d WHERE d.message_id = p.message_id);
  END IF;
  RETURN NULL;
END;
$function$;
COMMENT ON FUNCTION queen.dlq_forget_payloads() IS
  'Trigger after DELETE on queen.dlq: deletes the queen.dlq_payloads rows whose message has no DLQ entry left.';

CREATE OR REPLACE FUNCTION queen.list_max_payload_bytes()
 RETURNS bigint
 LANGUAGE sql
 IMMUTABLE PARALLEL SAFE
AS $function$
  SELECT 4194304::bigint
$function$;
COMMENT ON FUNCTION queen.list_max_payload_bytes() IS
  'Default payload byte budget of one listing (4 MiB) when the caller passes none.';

CREATE OR REPLACE FUNCTION queen.list_dlq(p_queue text, p_group text, p_partition text, p_from timestamp with time zone, p_to timestamp with time zone, p_limit integer, p_offset integer, p_tenant text, p_max_payload_bytes bigint DEFAULT NULL::bigint)
 RETURNS TABLE(message_id uuid, transaction_id text, partition_id uuid, queue_name text, partition_name text, consumer_group text, error_message text, retry_count integer, payload jsonb, payload_omitted boolean, is_encrypted boolean, producer_sub text, trace_id uuid, created_at timestamp with time zone, failed_at timestamp with time zone, total bigint)
 LANGUAGE plpgsql
 STABLE
AS $function$
#variable_conflict use_column
DECLARE
  v_budget bigint := coalesce(p_max_payload_bytes, queen.list_max_payload_bytes());
BEGIN
  PERFORM queen.check_at_least('limit', p_limit, 1);
  PERFORM queen.check_at_least('offset', p_offset, 0);
  PERFORM queen.check_at_least('maxPayloadBytes', v_budget, 0);
  RETURN QUERY
  WITH matching AS (
    SELECT f.message_id, f.consumer_group, f.failed_at, f.queue_name, f.partition_name
      FROM queen.dlq_matching(p_tenant, p_queue, p_group, p_partition, p_from, p_to, NULL) f
  ), page AS (
    SELECT m.*, (SELECT count(*) FROM matching) AS n FROM matching m
     ORDER BY m.failed_at DESC, m.message_id, m.consumer_group
     LIMIT p_limit OFFSET p_offset
  ), sized AS (
    SELECT pg.*, d.transaction_id, d.partition_id, d.error_message, d.retry_count, d.is_encrypted, d.producer_sub,
           d.trace_id, d.message_created_at,
           sum(coalesce(pl.payload_bytes, 4)) OVER (ORDER BY pg.failed_at DESC, pg.message_id, pg.consumer_group
                                                    ROWS UNBOUNDED PRECEDING) AS bytes_so_far
      FROM page pg
      JOIN queen.dlq d ON d.message_id = pg.message_id AND d.consumer_group = pg.consumer_group
      LEFT JOIN queen.dlq_payloads pl ON pl.message_id = pg.message_id
  )
  SELECT s.message_id, s.transaction_id, s.partition_id, s.queue_name::text, s.partition_name::text,
         s.consumer_group::text, s.error_message, s.retry_count,
         CASE WHEN s.bytes_so_far <= v_budget THEN (SELECT pl.payload FROM queen.dlq_payloads pl
                                                     WHERE pl.message_id = s.message_id) END,
         s.bytes_so_far > v_budget, s.is_encrypted, s.producer_sub, s.trace_id, s.message_created_at, s.failed_at,
         s.n
    FROM sized s
   ORDER BY s.failed_at DESC, s.message_id, s.consumer_group;
END;
$function$;
COMMENT ON FUNCTION queen.list_dlq(text,text,text,timestamp with time zone,timestamp with time zone,integer,integer,text,bigint) IS
  'Dead letters of the queues of tenant p_tenant matching the filters (null = any; p_from/p_to bound failed_at), newest failure first, paged by p_limit/p_offset. Payloads (stored once per message) are returned in page order while their JSON text sizes add up to at most p_max_payload_bytes (null = list_max_payload_bytes()); later rows have payload null and payload_omitted. Every row carries total = matching entries before paging; an offset past the end returns no rows. Cost: one pass over the matching narrow entry rows (sort and total), payloads read for the page only. 22023 on limit < 1, offset < 0 or a negative budget.';

CREATE TRIGGER dlq_forget_payloads AFTER DELETE ON queen.dlq REFERENCING OLD TABLE AS gone FOR EACH STATEMENT EXECUTE FUNCTION queen.dlq_forget_payloads();

COMMIT;
