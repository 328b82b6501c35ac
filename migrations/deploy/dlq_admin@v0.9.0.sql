-- Deploy queen:dlq_admin to pg
BEGIN;

-- The most dead letters one requeue or delete call handles (docs/api-extensions.md):
-- a call by filter touches at most this many entries; call again while it answers this many.
CREATE FUNCTION queen.dlq_admin_max_per_call() RETURNS int LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$ SELECT 1000 $$;
COMMENT ON FUNCTION queen.dlq_admin_max_per_call() IS
  'The most DLQ entries one requeue or delete call handles: 1000.';

-- The transactionId of a requeued copy: the original's (cut to 200 characters)
-- and the dead message's id, so it is unique, bounded (<= 245 characters) and
-- the same for every group's entry of one message (one copy per message).
CREATE FUNCTION queen.requeued_transaction_id(p_transaction_id text, p_message_id uuid) RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT left(p_transaction_id, 200) || '~requeue~' || p_message_id::text
$$;
COMMENT ON FUNCTION queen.requeued_transaction_id(text, uuid) IS
  'transactionId of the requeued copy of dead message p_message_id: left(original, 200) || ''~requeue~'' || message id.';

-- The DLQ entries of tenant p_tenant matching the listing's filters (null = any),
-- oldest failure first, at most p_limit, locked for the caller.
CREATE FUNCTION queen.select_dead_letters(p_queue text, p_group text, p_partition text, p_from timestamptz,
                                          p_to timestamptz, p_message_id uuid, p_limit int, p_tenant text)
RETURNS TABLE (message_id uuid, consumer_group text)
LANGUAGE sql AS $$
  -- FOR UPDATE cannot name a function's rows: the matching keys are chosen first, then locked
  SELECT d.message_id, d.consumer_group::text
    FROM queen.dlq d
   WHERE (d.message_id, d.consumer_group::text) IN
         (SELECT f.message_id, f.consumer_group
            FROM queen.dlq_matching(p_tenant, p_queue, p_group, p_partition, p_from, p_to, p_message_id) f
           ORDER BY f.failed_at, f.message_id, f.consumer_group
           LIMIT p_limit)
   ORDER BY d.failed_at, d.message_id, d.consumer_group
     FOR UPDATE OF d
$$;
COMMENT ON FUNCTION queen.select_dead_letters(text, text, text, timestamptz, timestamptz, uuid, int, text) IS
  'Internal to requeue_dead_letters/delete_dead_letters: the matching DLQ keys of tenant p_tenant, oldest failure first, at most p_limit, row-locked.';

-- Requeues the selected dead letters: one new message per dead message, appended
-- to its partition with the stored payload (still encrypted if it was), trace id
-- and producer, under requeued_transaction_id(); then the entries leave the DLQ.
-- The copy goes through store_messages like any push (dedup, maxSize, cursors'
-- pending flags): a copy refused by maxSize leaves its entries in the DLQ.
-- Returns {"requeued": entries removed, "queues": [names of queues that received a copy]}.
CREATE FUNCTION queen.requeue_dead_letters(p_queue text, p_group text,
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
COMMENT ON FUNCTION queen.requeue_dead_letters(text, text, text, timestamptz, timestamptz, uuid, text) IS
  'Requeues up to dlq_admin_max_per_call() DLQ entries of tenant p_tenant matching the filters (queue, group, partition, failed_at window, message id; null = any; queue or message id required), oldest failure first: one new message per dead message in its partition (payload, trace id and producer copied, transactionId requeued_transaction_id()), seen by every group that reads the partition; the entries whose copy was stored (or already existed) are deleted. Returns {"requeued": entries removed, "queues": [queues that received a new message]}. 22023 without queue and message id.';

-- Deletes up to dlq_admin_max_per_call() DLQ entries matching the filters; returns how many.
CREATE FUNCTION queen.delete_dead_letters(p_queue text, p_group text,
                                          p_partition text, p_from timestamptz,
                                          p_to timestamptz, p_message_id uuid,
                                          p_tenant text)
RETURNS int
LANGUAGE plpgsql AS $$
DECLARE
  v_deleted int;
BEGIN
  IF p_queue IS NULL AND p_message_id IS NULL THEN
    RAISE EXCEPTION 'queue is required' USING ERRCODE = '22023';
  END IF;
  DELETE FROM queen.dlq d
   USING queen.select_dead_letters(p_queue, p_group, p_partition, p_from, p_to, p_message_id,
                                   queen.dlq_admin_max_per_call(), p_tenant) k
   WHERE d.message_id = k.message_id AND d.consumer_group = k.consumer_group;
  GET DIAGNOSTICS v_deleted = ROW_COUNT;
  RETURN v_deleted;
END;
$$;
COMMENT ON FUNCTION queen.delete_dead_letters(text, text, text, timestamptz, timestamptz, uuid, text) IS
  'Deletes up to dlq_admin_max_per_call() DLQ entries of tenant p_tenant matching the filters (as requeue_dead_letters; the messages themselves stay), oldest failure first; returns how many. 22023 without queue and message id.';

-- POST /api/v1/messages/:partitionId/:transactionId/retry: requeues every DLQ
-- entry of the message. Returns {"messageId": the copy's id, "queues": [...]}, or null
-- when tenant p_tenant has no DLQ entry for it.
CREATE FUNCTION queen.retry_dead_message(p_partition_id uuid, p_transaction_id text, p_tenant text)
RETURNS jsonb
LANGUAGE plpgsql AS $$
DECLARE
  v_message_id uuid;
  v_result jsonb;
BEGIN
  SELECT d.message_id INTO v_message_id
    FROM queen.dlq d
    JOIN queen.partitions p ON p.id = d.partition_id
    JOIN queen.queues q ON q.id = p.queue_id AND q.tenant = queen.tenant_arg(p_tenant)
   WHERE d.partition_id = p_partition_id AND d.transaction_id = p_transaction_id
   LIMIT 1;
  IF v_message_id IS NULL THEN
    RETURN NULL;
  END IF;
  v_result := queen.requeue_dead_letters(p_message_id => v_message_id, p_tenant => p_tenant, p_queue => NULL, p_group => NULL, p_partition => NULL, p_from => NULL, p_to => NULL);
  IF (v_result ->> 'requeued')::int = 0 THEN
    RAISE EXCEPTION 'the requeued copy was refused (queue full: maxSize reached)' USING ERRCODE = '22023';
  END IF;
  RETURN jsonb_build_object('messageId', (SELECT m.id FROM queen.messages m
                                           WHERE m.partition_id = p_partition_id
                                             AND m.transaction_id = queen.requeued_transaction_id(p_transaction_id, v_message_id)),
                            'queues', v_result -> 'queues');
END;
$$;
COMMENT ON FUNCTION queen.retry_dead_message(uuid, text, text) IS
  'Requeues (requeue_dead_letters) every DLQ entry of the message (p_partition_id, p_transaction_id) of tenant p_tenant; returns {"messageId": the new message''s id, "queues": [...]}, null when the message has no DLQ entry. 22023 when maxSize refuses the copy.';

COMMIT;
