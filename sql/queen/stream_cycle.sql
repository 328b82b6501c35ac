CREATE OR REPLACE FUNCTION queen.stream_cycle(p_cycle jsonb, p_producer_sub text, p_tenant text, p_now timestamp with time zone DEFAULT NULL::timestamp with time zone)
 RETURNS jsonb
 LANGUAGE plpgsql SECURITY DEFINER SET search_path TO 'pg_catalog', 'queen', 'queen_internal', 'pg_temp' SET jit TO 'off' AS $function$
DECLARE
  v_now timestamptz := coalesce(p_now, now());
  v_tenant text := queen_internal.tenant_arg(p_tenant);
  v_query_id uuid := queen_internal.uuid_or_null(p_cycle ->> 'query_id');
  v_partition_id uuid := queen_internal.uuid_or_null(p_cycle ->> 'partition_id');
  v_group text := queen_internal.group_or_queue_mode(p_cycle ->> 'consumer_group');
  v_release bool := coalesce(NOT (jsonb_typeof(p_cycle -> 'release_lease') = 'boolean'
                                  AND NOT (p_cycle ->> 'release_lease')::bool), true);
  v_ops jsonb := coalesce(nullif(p_cycle -> 'state_ops', 'null'::jsonb), '[]'::jsonb);
  v_items jsonb := coalesce(nullif(p_cycle -> 'push_items', 'null'::jsonb), '[]'::jsonb);
  v_ack jsonb := nullif(p_cycle -> 'ack', 'null'::jsonb);
  v_key text := nullif(p_cycle ->> 'idempotency_key', '');
  q queen.stream_queries;
  v_applied int := 0;
  v_pushes jsonb := '[]'::jsonb;  -- plpgsql variables survive the rollback below
  v_ack_result jsonb;
  v_item record;
  v_base jsonb;
BEGIN
  v_base := jsonb_build_object('query_id', coalesce(v_query_id::text, ''), 'partition_id', coalesce(v_partition_id::text, ''));
  IF jsonb_typeof(v_ops) <> 'array' THEN
    RAISE EXCEPTION 'state_ops must be an array' USING ERRCODE = '22023';
  ELSIF jsonb_typeof(v_items) <> 'array' THEN
    RAISE EXCEPTION 'push_items must be an array' USING ERRCODE = '22023';
  ELSIF v_ack IS NOT NULL AND jsonb_typeof(v_ack) <> 'object' THEN
    RAISE EXCEPTION 'ack must be an object or null' USING ERRCODE = '22023';
  END IF;
  PERFORM queen_internal.check_stream_limit('max_push_items', 'push_items', jsonb_array_length(v_items));
  IF v_query_id IS NULL THEN
    RETURN v_base || jsonb_build_object('success', false, 'error', 'query_id must be a UUID', 'queueName', NULL,
             'state_ops_applied', 0, 'push_results', '[]'::jsonb, 'ack_result', NULL);
  ELSIF v_partition_id IS NULL THEN
    RETURN v_base || jsonb_build_object('success', false, 'error', 'partition_id must be a UUID', 'queueName', NULL,
             'state_ops_applied', 0, 'push_results', '[]'::jsonb, 'ack_result', NULL);
  END IF;
  q := queen_internal.stream_query_of(v_tenant, v_query_id::text);
  IF q.id IS NULL THEN
    RETURN v_base || jsonb_build_object('success', false, 'error', 'Unknown query_id (register the query first)',
             'queueName', NULL, 'state_ops_applied', 0, 'push_results', '[]'::jsonb, 'ack_result', NULL);
  END IF;
  v_base := v_base || jsonb_build_object('queueName', q.source_queue);

  -- One cycle at a time per shard.
  PERFORM pg_advisory_xact_lock(hashtextextended('queen.stream_shard:' || q.id || ':' || v_partition_id, 0));

  -- All or nothing: a failed check raises QS001 inside this block, which rolls back
  -- everything the block did; the caller gets success:false and the reason.
  BEGIN
    IF v_key IS NOT NULL THEN
      DELETE FROM queen.stream_cycle_keys k
       WHERE k.query_id = q.id AND k.partition_id = v_partition_id
         AND k.committed_at < v_now - queen_internal.stream_key_retention();
      -- Exact: the shard lock above orders the cycles of the shard, and this statement sees the last one.
      IF EXISTS (SELECT 1 FROM queen.stream_cycle_keys k
                  WHERE k.query_id = q.id AND k.partition_id = v_partition_id AND k.idempotency_key = v_key) THEN
        -- committed before: answered as done, nothing applied again
        RETURN v_base || jsonb_build_object('success', true, 'replayed', true, 'state_ops_applied', 0,
                                            'push_results', '[]'::jsonb, 'ack_result', NULL);
      END IF;
    END IF;

    -- Before the key is stored: a cycle refused past the state quota (QQ429) writes no row at all.
    v_applied := queen_internal.apply_stream_state_ops(q, v_partition_id, v_ops, v_now);
    IF v_key IS NOT NULL THEN
      INSERT INTO queen.stream_cycle_keys (query_id, partition_id, idempotency_key, committed_at)
      VALUES (q.id, v_partition_id, v_key, v_now);
    END IF;

    IF jsonb_array_length(v_items) > 0 THEN
      FOR v_item IN SELECT r.*, x.e ->> 'traceId' AS trace_id
                      FROM queen.push_messages(v_items, p_producer_sub, v_tenant) r
                      JOIN jsonb_array_elements(v_items) WITH ORDINALITY AS x(e, ord) ON x.ord - 1 = r.idx
                     ORDER BY r.idx LOOP
        IF v_item.status NOT IN ('queued', 'duplicate') THEN
          RAISE EXCEPTION 'Sink push failed: %', coalesce(v_item.error, v_item.status) USING ERRCODE = 'QS001';
        END IF;
        v_pushes := v_pushes || jsonb_build_array(jsonb_strip_nulls(jsonb_build_object(
          'index', v_item.idx, 'transaction_id', v_item.transaction_id, 'status', v_item.status,
          'message_id', v_item.message_id, 'queueName', v_item.queue_name,
          'partition_id', CASE WHEN v_item.status = 'queued' THEN v_item.partition_id END,
          'trace_id', CASE WHEN v_item.status = 'queued' THEN v_item.trace_id END)));
      END LOOP;
    END IF;

    IF v_ack IS NOT NULL THEN
      v_ack_result := queen_internal.stream_ack(v_ack, v_partition_id, v_group, v_release, v_now, v_tenant);
    END IF;
  EXCEPTION
    WHEN SQLSTATE 'QS001' THEN
      RETURN v_base || jsonb_build_object('success', false, 'error', SQLERRM, 'state_ops_applied', v_applied,
                                          'push_results', v_pushes, 'ack_result', NULL);
  END;
  RETURN v_base || jsonb_build_object('success', true, 'state_ops_applied', v_applied, 'push_results', v_pushes,
                                      'ack_result', v_ack_result);
END;
$function$;

COMMENT ON FUNCTION queen.stream_cycle(p_cycle jsonb, p_producer_sub text, p_tenant text, p_now timestamp with time zone) IS 'POST /streams/v1/cycle for tenant p_tenant, in one transaction: the state ops of (query_id, partition_id) in order, the push_items through queen.push_messages (producer p_producer_sub; dedup, tenants, encryption as any push; duplicate is not an error), then the source ack {transactionId, leaseId?, status?, count?, error?} for consumer_group with its lease fence, the lease released unless release_lease is false. idempotency_key (our extension): a key already committed for the shard answers {success:true, replayed:true} and changes nothing. A failed check (unknown query, bad op, failed push item, Message not found, Invalid or expired lease, Unknown ack.status) rolls everything back: {success:false, error, ...}. 22023 for a malformed body or past a QUEEN_STREAM_* bound; QQ429 past the state quota.';
GRANT EXECUTE ON FUNCTION queen.stream_cycle(p_cycle jsonb, p_producer_sub text, p_tenant text, p_now timestamp with time zone) TO queen_admin, queen_broker;
