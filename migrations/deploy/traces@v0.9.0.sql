-- Deploy queen:traces to pg
BEGIN;

-- Processing traces a consumer records against a message (POST /api/v1/traces).
-- A trace belongs to its message: the foreign key on the message's dedup key
-- removes the traces with the message (retention, DELETE /messages, queue
-- deletion). tenant is the message's queue's tenant, copied at insert so the
-- by-name and names listings filter without joining the queues.
CREATE TABLE queen.message_traces (
  id             uuid        PRIMARY KEY DEFAULT queen.uuid_v7(),
  partition_id   uuid        NOT NULL,
  transaction_id text        NOT NULL,
  tenant         queen.tenant_text NOT NULL,
  consumer_group queen.name_text NOT NULL,
  event_type     text        NOT NULL,
  data           jsonb       NOT NULL,
  trace_names    text[]      NOT NULL DEFAULT '{}',
  worker_id      text,
  created_at     timestamptz NOT NULL DEFAULT clock_timestamp(),
  CONSTRAINT message_traces_message_fkey FOREIGN KEY (partition_id, transaction_id)
    REFERENCES queen.messages (partition_id, transaction_id) ON DELETE CASCADE
);
COMMENT ON TABLE queen.message_traces IS
  'Traces recorded by consumers per message (keyed by the message''s partition and transactionId), removed with their message. trace_names groups traces across messages (GET /api/v1/traces/by-name).';

-- The message's traces (GET /traces/:partitionId/:transactionId) and the cascade from queen.messages.
CREATE INDEX message_traces_message_idx ON queen.message_traces (partition_id, transaction_id, created_at);
-- By-name lookups: the traces carrying a name.
CREATE INDEX message_traces_names_idx ON queen.message_traces USING gin (trace_names);

-- The bounds of one trace (docs/limits.md).
CREATE FUNCTION queen.trace_max_names() RETURNS int LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$ SELECT 16 $$;
COMMENT ON FUNCTION queen.trace_max_names() IS 'The most trace names one trace may carry: 16.';
CREATE FUNCTION queen.trace_max_data_bytes() RETURNS int LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$ SELECT 65536 $$;
COMMENT ON FUNCTION queen.trace_max_data_bytes() IS 'The largest trace data, as JSON text, in bytes: 64 KiB.';

-- Records one trace. One INSERT ... SELECT: the message must exist in one of
-- p_tenant's queues; returns the trace id, or null when there is no such message.
CREATE FUNCTION queen.record_trace(p_partition_id uuid, p_transaction_id text, p_data jsonb,
                                   p_trace_names text[], p_event_type text,
                                   p_consumer_group text, p_worker_id text,
                                   p_tenant text)
RETURNS uuid
LANGUAGE plpgsql AS $$
DECLARE
  v_names text[] := coalesce(p_trace_names, '{}');
  v_id uuid;
BEGIN
  IF p_partition_id IS NULL OR p_transaction_id IS NULL OR p_transaction_id = '' THEN
    RAISE EXCEPTION 'transactionId and partitionId are required' USING ERRCODE = '22023';
  END IF;
  IF p_data IS NULL THEN
    RAISE EXCEPTION 'data is required' USING ERRCODE = '22023';
  END IF;
  IF octet_length(p_data::text) > queen.trace_max_data_bytes() THEN
    RAISE EXCEPTION 'trace data is larger than % bytes', queen.trace_max_data_bytes() USING ERRCODE = '22023';
  END IF;
  IF cardinality(v_names) > queen.trace_max_names() THEN
    RAISE EXCEPTION 'more than % trace names', queen.trace_max_names() USING ERRCODE = '22023';
  END IF;
  IF EXISTS (SELECT 1 FROM unnest(v_names) n WHERE n IS NULL OR queen.name_problem(n) IS NOT NULL) THEN
    RAISE EXCEPTION 'trace names must be 1 to % characters', queen.name_max_chars() USING ERRCODE = '22023';
  END IF;
  IF queen.name_problem(p_event_type) IS NOT NULL OR queen.name_problem(p_consumer_group) IS NOT NULL
     OR length(p_worker_id) > queen.name_max_chars() THEN
    RAISE EXCEPTION 'eventType, consumerGroup and workerId must be 1 to % characters', queen.name_max_chars()
      USING ERRCODE = '22023';
  END IF;
  INSERT INTO queen.message_traces (partition_id, transaction_id, tenant, consumer_group, event_type, data,
                                    trace_names, worker_id)
  SELECT m.partition_id, m.transaction_id, q.tenant, coalesce(p_consumer_group, '__QUEUE_MODE__'),
         coalesce(p_event_type, 'info'), p_data, ARRAY(SELECT DISTINCT n FROM unnest(v_names) n ORDER BY n), p_worker_id
    FROM queen.messages m
    JOIN queen.partitions p ON p.id = m.partition_id
    JOIN queen.queues q ON q.id = p.queue_id AND q.tenant = queen.tenant_arg(p_tenant)
   WHERE m.partition_id = p_partition_id AND m.transaction_id = p_transaction_id
  RETURNING id INTO v_id;
  RETURN v_id;
END;
$$;
COMMENT ON FUNCTION queen.record_trace(uuid, text, jsonb, text[], text, text, text, text) IS
  'Records a trace against the message (p_partition_id, p_transaction_id) of tenant p_tenant; returns the trace id, null when the tenant has no such message. Names are deduplicated. 22023 on a missing key or data, data over trace_max_data_bytes(), more than trace_max_names() names, or a name/eventType/consumerGroup that is not a name.';

-- GET /api/v1/traces/:partitionId/:transactionId: {"traces": [...]} oldest first, snake_case keys.
CREATE FUNCTION queen.message_traces_of(p_partition_id uuid, p_transaction_id text, p_tenant text)
RETURNS jsonb
LANGUAGE sql STABLE AS $$
  SELECT jsonb_build_object('traces', coalesce(jsonb_agg(jsonb_build_object(
           'id', t.id, 'event_type', t.event_type, 'data', t.data, 'consumer_group', t.consumer_group,
           'worker_id', t.worker_id, 'created_at', queen.iso_millis(t.created_at), 'trace_names', to_jsonb(t.trace_names))
           ORDER BY t.created_at, t.id), '[]'::jsonb))
    FROM queen.message_traces t
   WHERE t.partition_id = p_partition_id AND t.transaction_id = p_transaction_id
     AND t.tenant = queen.tenant_arg(p_tenant)
$$;
COMMENT ON FUNCTION queen.message_traces_of(uuid, text, text) IS
  'The traces of one message of tenant p_tenant as {"traces": [{id, event_type, data, consumer_group, worker_id, created_at, trace_names}]}, oldest first; an unknown message has none.';

-- GET /api/v1/traces/by-name/:traceName. The payload is returned as stored with
-- message_encrypted, so the broker decrypts it (docs/encryption.md).
CREATE FUNCTION queen.traces_by_name(p_trace_name text, p_limit int, p_offset int,
                                     p_tenant text)
RETURNS jsonb
LANGUAGE plpgsql STABLE AS $$
DECLARE
  v_tenant text := queen.tenant_arg(p_tenant);
  v_total bigint;
  v_traces jsonb;
BEGIN
  PERFORM queen.check_at_least('limit', p_limit, 1);
  PERFORM queen.check_at_least('offset', p_offset, 0);
  SELECT count(*) INTO v_total FROM queen.message_traces t
   WHERE t.trace_names @> ARRAY[p_trace_name] AND t.tenant = v_tenant;
  SELECT coalesce(jsonb_agg(x.trace ORDER BY x.created_at DESC, x.id), '[]'::jsonb) INTO v_traces
    FROM (SELECT t.id, t.created_at, jsonb_build_object(
                 'id', t.id, 'transaction_id', t.transaction_id, 'partition_id', t.partition_id,
                 'event_type', t.event_type, 'data', t.data, 'consumer_group', t.consumer_group,
                 'worker_id', t.worker_id, 'created_at', queen.iso_millis(t.created_at),
                 'queue_name', q.name, 'partition_name', p.name, 'message_payload', m.payload,
                 'message_encrypted', m.is_encrypted, 'trace_names', to_jsonb(t.trace_names)) AS trace
            FROM queen.message_traces t
            JOIN queen.messages m ON m.partition_id = t.partition_id AND m.transaction_id = t.transaction_id
            JOIN queen.partitions p ON p.id = t.partition_id
            JOIN queen.queues q ON q.id = p.queue_id
           WHERE t.trace_names @> ARRAY[p_trace_name] AND t.tenant = v_tenant
           ORDER BY t.created_at DESC, t.id
           LIMIT p_limit OFFSET p_offset) x;
  RETURN jsonb_build_object('traces', v_traces, 'total', v_total,
                            'pagination', jsonb_build_object('limit', p_limit, 'offset', p_offset));
END;
$$;
COMMENT ON FUNCTION queen.traces_by_name(text, int, int, text) IS
  'Traces of tenant p_tenant carrying p_trace_name, newest first, paged: {"traces": [{id, transaction_id, partition_id, event_type, data, consumer_group, worker_id, created_at, queue_name, partition_name, message_payload, message_encrypted, trace_names}], "total", "pagination": {limit, offset}}. message_payload is as stored (the broker decrypts it and drops message_encrypted). 22023 on limit < 1 or offset < 0.';

-- GET /api/v1/traces/names. Aggregates the tenant's traces (bounded: traces live
-- only as long as their messages).
CREATE FUNCTION queen.trace_names(p_limit int, p_offset int, p_tenant text)
RETURNS jsonb
LANGUAGE plpgsql STABLE AS $$
DECLARE
  v_result jsonb;
BEGIN
  PERFORM queen.check_at_least('limit', p_limit, 1);
  PERFORM queen.check_at_least('offset', p_offset, 0);
  WITH named AS (
    SELECT n.name, count(*) AS trace_count, count(DISTINCT (t.partition_id, t.transaction_id)) AS message_count,
           max(t.created_at) AS last_seen
      FROM queen.message_traces t CROSS JOIN LATERAL unnest(t.trace_names) AS n(name)
     WHERE t.tenant = queen.tenant_arg(p_tenant)
     GROUP BY n.name
  ), page AS (
    SELECT * FROM named ORDER BY last_seen DESC, name LIMIT p_limit OFFSET p_offset
  )
  SELECT jsonb_build_object(
           'trace_names', coalesce((SELECT jsonb_agg(jsonb_build_object(
               'trace_name', pg.name, 'trace_count', pg.trace_count, 'message_count', pg.message_count,
               'last_seen', queen.iso_millis(pg.last_seen)) ORDER BY pg.last_seen DESC, pg.name) FROM page pg), '[]'::jsonb),
           'total', (SELECT count(*) FROM named),
           'pagination', jsonb_build_object('limit', p_limit, 'offset', p_offset))
    INTO v_result;
  RETURN v_result;
END;
$$;
COMMENT ON FUNCTION queen.trace_names(int, int, text) IS
  'The trace names of tenant p_tenant, most recently used first, paged: {"trace_names": [{trace_name, trace_count, message_count, last_seen}], "total", "pagination": {limit, offset}}. 22023 on limit < 1 or offset < 0.';

COMMIT;
