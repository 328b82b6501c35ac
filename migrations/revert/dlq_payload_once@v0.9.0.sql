-- Revert queen:dlq_payload_once from pg
BEGIN;

-- Back to one payload copy per (message, group) entry.
DROP TRIGGER dlq_forget_payloads ON queen.dlq;
DROP FUNCTION queen.dlq_forget_payloads();
ALTER TABLE queen.dlq ADD COLUMN payload jsonb;
UPDATE queen.dlq d SET payload = p.payload FROM queen.dlq_payloads p WHERE p.message_id = d.message_id;
COMMENT ON TABLE queen.dlq IS
  'Dead-lettered messages per (message, consumer group) with the error, the retry count at the time and a copy of the payload.';

DROP FUNCTION queen.list_dlq(text, text, text, timestamptz, timestamptz, int, int, text, bigint);
DROP FUNCTION queen.list_max_payload_bytes();
CREATE FUNCTION queen.list_dlq(p_queue text, p_group text, p_partition text,
                               p_from timestamptz, p_to timestamptz,
                               p_limit int, p_offset int, p_tenant text)
RETURNS TABLE (message_id uuid, transaction_id text, partition_id uuid, queue_name text, partition_name text,
               consumer_group text, error_message text, retry_count int, payload jsonb, is_encrypted bool,
               producer_sub text, trace_id uuid, created_at timestamptz, failed_at timestamptz, total bigint)
LANGUAGE plpgsql STABLE AS $$
#variable_conflict use_column
BEGIN
  PERFORM queen.check_at_least('limit', p_limit, 1);
  PERFORM queen.check_at_least('offset', p_offset, 0);
  RETURN QUERY
  SELECT d.message_id, d.transaction_id, d.partition_id, f.queue_name, f.partition_name, f.consumer_group,
         d.error_message, d.retry_count, d.payload, d.is_encrypted, d.producer_sub, d.trace_id, d.message_created_at,
         d.failed_at, count(*) OVER ()
    FROM queen.dlq_matching(p_tenant, p_queue, p_group, p_partition, p_from, p_to, NULL) f
    JOIN queen.dlq d ON d.message_id = f.message_id AND d.consumer_group = f.consumer_group
   ORDER BY d.failed_at DESC, d.message_id, d.consumer_group
   LIMIT p_limit OFFSET p_offset;
END;
$$;
COMMENT ON FUNCTION queen.list_dlq(text, text, text, timestamptz, timestamptz, int, int, text) IS
  'Dead letters of the queues of tenant p_tenant ('''' = default) matching the filters (null = any; p_from/p_to bound failed_at), newest failure first, paged by p_limit/p_offset. Every row carries total = matching entries before paging; an offset past the end returns no rows. 22023 on limit < 1 or offset < 0.';

CREATE OR REPLACE FUNCTION queen.dead_letter(p_partition_id uuid, p_seq bigint, p_group text, p_error text, p_retry_count int)
RETURNS void
LANGUAGE sql AS $$
  INSERT INTO queen.dlq AS d (message_id, consumer_group, partition_id, seq, transaction_id, payload, trace_id,
                              producer_sub, is_encrypted, error_message, retry_count, message_created_at, failed_at)
  SELECT m.id, p_group, m.partition_id, m.seq, m.transaction_id, m.payload, m.trace_id, m.producer_sub,
         m.is_encrypted, p_error, p_retry_count, m.created_at, clock_timestamp()
    FROM queen.messages m
   WHERE m.partition_id = p_partition_id AND m.seq = p_seq
  ON CONFLICT ON CONSTRAINT dlq_pkey DO UPDATE
     SET error_message = EXCLUDED.error_message, retry_count = EXCLUDED.retry_count, failed_at = EXCLUDED.failed_at
$$;
COMMENT ON FUNCTION queen.dead_letter(uuid, bigint, text, text, int) IS
  'Dead-letters one message for one consumer group (payload copied); a repeat refreshes error, retry count and failure time.';

CREATE OR REPLACE FUNCTION queen.requeue_dead_letters(p_queue text, p_group text,
                                           p_partition text, p_from timestamptz,
                                           p_to timestamptz, p_message_id uuid,
                                           p_tenant text)
RETURNS jsonb
LANGUAGE plpgsql AS $$
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
      FROM (SELECT DISTINCT ON (d.message_id) d.message_id, d.transaction_id, d.payload, d.trace_id, d.is_encrypted,
                   d.producer_sub, d.failed_at, q.name::text AS queue_name, p.name::text AS partition_name
              FROM queen.dlq d
              JOIN unnest(v_key_messages, v_key_groups) k(message_id, consumer_group)
                ON k.message_id = d.message_id AND k.consumer_group = d.consumer_group
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
$$;

DROP TABLE queen.dlq_payloads;

COMMIT;
