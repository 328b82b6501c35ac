-- Deploy queen:streams to pg
-- Stream queries (docs/streams.md): the registry of queries, their state per
-- (query, source partition, key) as opaque JSON, and the cycle that commits a
-- batch's state changes, sink pushes and source ack in one transaction. The
-- operators (windows, gates, watermarks) run in the client SDK; the server only
-- keeps rows and commits cycles atomically.
BEGIN;
SET LOCAL ROLE queen_owner;  -- the objects' owner (docs/procedures.md, Roles)

-- One row per query of a tenant. The name is the SDK's queryId; the hash is the
-- SDK's digest of its operator chain, so a changed chain is refused until the
-- client asks for a reset.
CREATE TABLE queen.stream_queries (
  id           uuid              NOT NULL DEFAULT queen_internal.uuid_v7(),
  tenant       queen.tenant_text NOT NULL,
  name         queen.name_text   NOT NULL,
  source_queue queen.name_text   NOT NULL,  -- informational: not checked to exist
  sink_queue   queen.name_text,             -- informational
  config_hash  text              NOT NULL CHECK (length(config_hash) BETWEEN 1 AND 1024),
  created_at   timestamptz       NOT NULL DEFAULT now(),
  updated_at   timestamptz       NOT NULL DEFAULT now(),
  CONSTRAINT stream_queries_pkey PRIMARY KEY (id),
  CONSTRAINT stream_queries_tenant_name_key UNIQUE (tenant, name)
);
COMMENT ON TABLE queen.stream_queries IS
  'Stream queries per tenant (POST /streams/v1/queries): name (the SDK queryId) unique per tenant, the source and sink queue names as registered, and config_hash, the digest of the operator chain the state belongs to.';

-- The state of a query: opaque JSON per (query, source partition, key), in key
-- byte order (COLLATE "C"), so reads come back ordered as the SDK expects and a
-- key prefix is a contiguous range. Deliberately not linked to partitions: the
-- SDK names the source partition, the server never checks it. tenant and
-- counted_bytes are kept on the row so what a row adds to its tenant's usage
-- comes back exactly when it goes, however it goes.
CREATE TABLE queen.stream_state (
  query_id      uuid              NOT NULL REFERENCES queen.stream_queries (id) ON DELETE CASCADE,
  partition_id  uuid              NOT NULL,
  key           text COLLATE "C"  NOT NULL CHECK (octet_length(key) BETWEEN 1 AND 1024),
  value         jsonb             NOT NULL,
  tenant        queen.tenant_text NOT NULL,
  counted_bytes bigint            NOT NULL,
  updated_at    timestamptz       NOT NULL DEFAULT now(),
  CONSTRAINT stream_state_pkey PRIMARY KEY (query_id, partition_id, key)
);
COMMENT ON TABLE queen.stream_state IS
  'Stream state rows: value (any JSON, opaque to the server) per (query, source partition, key). counted_bytes (key plus value as written) counts against the tenant''s QUEEN_TENANT_MAX_STREAM_STATE_BYTES.';

-- Our extension: the idempotency keys of committed cycles, so a cycle retried
-- with the same key (an idle flush, which has no lease to fence it) changes
-- nothing the second time. Kept a day per shard, pruned by the cycles of the shard.
CREATE TABLE queen.stream_cycle_keys (
  query_id        uuid        NOT NULL REFERENCES queen.stream_queries (id) ON DELETE CASCADE,
  partition_id    uuid        NOT NULL,
  idempotency_key text        NOT NULL CHECK (length(idempotency_key) BETWEEN 1 AND 255),
  committed_at    timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT stream_cycle_keys_pkey PRIMARY KEY (query_id, partition_id, idempotency_key)
);
COMMENT ON TABLE queen.stream_cycle_keys IS
  'Idempotency keys of committed stream cycles per (query, source partition), kept queen_internal.stream_key_retention() (one day): a cycle repeating a key is answered replayed and changes nothing.';

-- Stored state per tenant, striped by session as queen.tenant_usage is, so
-- concurrent cycles of one tenant do not queue on one row.
CREATE TABLE queen.stream_usage (
  tenant      queen.tenant_text NOT NULL,
  stripe      smallint          NOT NULL,
  state_keys  bigint            NOT NULL DEFAULT 0,
  state_bytes bigint            NOT NULL DEFAULT 0,
  CONSTRAINT stream_usage_pkey PRIMARY KEY (tenant, stripe)
);
COMMENT ON TABLE queen.stream_usage IS
  'Stream state stored per tenant (keys, counted bytes), summed over its stripes; maintained by the stream procedures and the query delete trigger.';

-- ------------------------------------------------------------------ limits
-- The bounds of one request. Each is a session setting the broker sets from its
-- QUEEN_STREAM_* variable on every connection; a session without it (a DBA's
-- psql) gets the broker's default.
CREATE FUNCTION queen_internal.stream_limit(p_name text) RETURNS bigint
LANGUAGE sql STABLE AS $$
  SELECT coalesce(nullif(current_setting('queen.stream_' || p_name, true), '')::bigint,
                  CASE p_name WHEN 'max_value_bytes' THEN 1048576
                              WHEN 'max_state_ops' THEN 10000
                              WHEN 'max_push_items' THEN 10000
                              WHEN 'max_read_keys' THEN 10000 END)
$$;
COMMENT ON FUNCTION queen_internal.stream_limit(text) IS
  'A stream request bound: session setting queen.stream_<p_name> (max_value_bytes, max_state_ops, max_push_items, max_read_keys), else the broker default.';

-- Raises 22023 naming the bound and its variable when p_count exceeds it.
CREATE FUNCTION queen_internal.check_stream_limit(p_name text, p_what text, p_count bigint) RETURNS void
LANGUAGE plpgsql STABLE AS $$
DECLARE
  v_limit bigint := queen_internal.stream_limit(p_name);
BEGIN
  IF v_limit > 0 AND p_count > v_limit THEN
    RAISE EXCEPTION '% (%) exceeds the limit of % (QUEEN_STREAM_%)', p_what, p_count, v_limit, upper(p_name)
      USING ERRCODE = '22023';
  END IF;
END;
$$;
COMMENT ON FUNCTION queen_internal.check_stream_limit(text, text, bigint) IS
  'Raises SQLSTATE 22023 "<what> (<count>) exceeds the limit of <limit> (QUEEN_STREAM_<NAME>)" past queen_internal.stream_limit(p_name); 0 = unlimited.';

CREATE FUNCTION queen_internal.stream_key_retention() RETURNS interval
LANGUAGE sql IMMUTABLE AS $$ SELECT interval '1 day' $$;
COMMENT ON FUNCTION queen_internal.stream_key_retention() IS
  'How long a committed cycle''s idempotency key is remembered.';

-- ------------------------------------------------------------------- usage
-- Adds deltas to this session's stripe of p_tenant; growth is checked against
-- the tenant's quota (queen_internal.check_tenant_quota with quota stream_state_bytes:
-- session setting queen.tenant_max_stream_state_bytes, QQ429 past it).
CREATE FUNCTION queen_internal.add_stream_usage(p_tenant text, p_keys bigint, p_bytes bigint) RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
  v_bytes bigint;
BEGIN
  IF p_keys = 0 AND p_bytes = 0 THEN
    RETURN;
  END IF;
  INSERT INTO queen.stream_usage AS u (tenant, stripe, state_keys, state_bytes)
  VALUES (p_tenant, (pg_backend_pid() % queen_internal.tenant_usage_stripes())
                    + CASE WHEN p_bytes < 0 THEN queen_internal.tenant_usage_stripes() ELSE 0 END, p_keys, p_bytes)
  ON CONFLICT ON CONSTRAINT stream_usage_pkey DO UPDATE
     SET state_keys = u.state_keys + EXCLUDED.state_keys, state_bytes = u.state_bytes + EXCLUDED.state_bytes;
  IF p_bytes > 0 THEN
    SELECT coalesce(sum(u.state_bytes), 0) INTO v_bytes FROM queen.stream_usage u WHERE u.tenant = p_tenant;
    PERFORM queen_internal.check_tenant_quota(p_tenant, 'stream_state_bytes', v_bytes);
  END IF;
END;
$$;
COMMENT ON FUNCTION queen_internal.add_stream_usage(text, bigint, bigint) IS
  'Adds key and byte deltas to this session''s stripe of p_tenant''s stream usage (give-back on separate stripes); growth past QUEEN_TENANT_MAX_STREAM_STATE_BYTES raises QQ429.';

CREATE FUNCTION queen.stream_usage_of(p_tenant text, OUT state_keys bigint, OUT state_bytes bigint)
SECURITY DEFINER
SET search_path = pg_catalog, queen, queen_internal, pg_temp
LANGUAGE sql STABLE AS $$
  SELECT coalesce(sum(u.state_keys), 0)::bigint, coalesce(sum(u.state_bytes), 0)::bigint
    FROM queen.stream_usage u WHERE u.tenant = queen_internal.tenant_arg(p_tenant)
$$;
COMMENT ON FUNCTION queen.stream_usage_of(text) IS
  'The stream state tenant p_tenant ('''' = default) stores now: keys and counted bytes.';

-- A deleted query (by a DBA; no route deletes one) gives its state back before
-- the cascade removes it.
CREATE FUNCTION queen_internal.stream_query_give_back() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
  r record;
BEGIN
  SELECT count(*) AS keys, coalesce(sum(s.counted_bytes), 0)::bigint AS bytes INTO r
    FROM queen.stream_state s WHERE s.query_id = OLD.id;
  PERFORM queen_internal.add_stream_usage(OLD.tenant, -r.keys, -r.bytes);
  RETURN OLD;
END;
$$;
CREATE TRIGGER stream_queries_give_back BEFORE DELETE ON queen.stream_queries
  FOR EACH ROW EXECUTE FUNCTION queen_internal.stream_query_give_back();

-- ---------------------------------------------------------------- register
CREATE FUNCTION queen.stream_register_query(p_request jsonb, p_tenant text) RETURNS jsonb
SECURITY DEFINER
SET search_path = pg_catalog, queen, queen_internal, pg_temp
SET jit = off
LANGUAGE plpgsql AS $$
DECLARE
  v_tenant text := queen_internal.tenant_arg(p_tenant);
  v_name text := p_request ->> 'name';
  v_source text := p_request ->> 'source_queue';
  v_sink text := nullif(p_request ->> 'sink_queue', '');
  v_hash text := p_request ->> 'config_hash';
  v_reset bool := coalesce(jsonb_typeof(p_request -> 'reset') = 'boolean' AND (p_request ->> 'reset')::bool, false);
  q queen.stream_queries;
  v_fresh bool := false;
  v_did_reset bool := false;
  v_gone record;
BEGIN
  IF length(v_hash) > 1024 THEN
    RAISE EXCEPTION 'config_hash must be at most 1024 characters' USING ERRCODE = '22023';
  END IF;
  IF coalesce(v_name, '') = '' THEN
    RAISE EXCEPTION 'name is required' USING ERRCODE = '22023';
  ELSIF coalesce(v_source, '') = '' THEN
    RAISE EXCEPTION 'source_queue is required' USING ERRCODE = '22023';
  ELSIF coalesce(v_hash, '') = '' THEN
    RAISE EXCEPTION 'config_hash is required' USING ERRCODE = '22023';
  END IF;

  INSERT INTO queen.stream_queries (tenant, name, source_queue, sink_queue, config_hash)
  VALUES (v_tenant, v_name, v_source, v_sink, v_hash)
  ON CONFLICT ON CONSTRAINT stream_queries_tenant_name_key DO NOTHING
  RETURNING * INTO q;
  IF FOUND THEN
    v_fresh := true;
  ELSE
    SELECT * INTO q FROM queen.stream_queries s WHERE s.tenant = v_tenant AND s.name = v_name FOR UPDATE;
    IF q.config_hash <> v_hash AND NOT v_reset THEN
      RETURN jsonb_build_object('success', false, 'query_id', q.id, 'name', q.name, 'error',
        format('config_hash mismatch: operator chain changed for queryId ''%s''. Pass reset:true to wipe existing '
               'state, or use a new queryId.', q.name));
    END IF;
    IF q.config_hash <> v_hash THEN
      -- reset: the state goes, the id (and so the group cursor) stays
      WITH gone AS (DELETE FROM queen.stream_state s WHERE s.query_id = q.id RETURNING s.counted_bytes)
      SELECT count(*) AS keys, coalesce(sum(counted_bytes), 0)::bigint AS bytes INTO v_gone FROM gone;
      PERFORM queen_internal.add_stream_usage(v_tenant, -v_gone.keys, -v_gone.bytes);
      DELETE FROM queen.stream_cycle_keys k WHERE k.query_id = q.id;
      v_did_reset := true;
    END IF;
    UPDATE queen.stream_queries s
       SET source_queue = v_source, sink_queue = v_sink, config_hash = v_hash, updated_at = now()
     WHERE s.id = q.id;
  END IF;
  RETURN jsonb_build_object('success', true, 'query_id', q.id, 'name', q.name, 'config_hash', v_hash,
                            'fresh', v_fresh, 'reset', v_did_reset);
END;
$$;
COMMENT ON FUNCTION queen.stream_register_query(jsonb, text) IS
  'POST /streams/v1/queries for tenant p_tenant. p_request {name, source_queue, config_hash, sink_queue?, reset?}. New name: inserted (fresh). Same hash: queue names updated, state kept (reset ignored). Other hash with reset: state and idempotency keys deleted, hash stored, id kept (reset). Other hash without reset: nothing changes, {success:false, query_id, name, error:"config_hash mismatch: ..."}. 22023 when a required field is missing.';

-- ------------------------------------------------------------------- reads
-- The query of a (tenant, query id): null when the id is not a UUID or not the tenant's.
CREATE FUNCTION queen_internal.stream_query_of(p_tenant text, p_query_id text) RETURNS queen.stream_queries
LANGUAGE sql STABLE AS $$
  SELECT s.* FROM queen.stream_queries s WHERE s.id = queen_internal.uuid_or_null(p_query_id) AND s.tenant = p_tenant
$$;
COMMENT ON FUNCTION queen_internal.stream_query_of(text, text) IS
  'The stream query with id p_query_id of tenant p_tenant; null when p_query_id is not a UUID or names no query of the tenant.';

CREATE FUNCTION queen.stream_state_get(p_request jsonb, p_tenant text) RETURNS jsonb
SECURITY DEFINER
SET search_path = pg_catalog, queen, queen_internal, pg_temp
SET jit = off
LANGUAGE plpgsql STABLE AS $$
DECLARE
  v_tenant text := queen_internal.tenant_arg(p_tenant);
  v_partition_id uuid := queen_internal.uuid_or_null(p_request ->> 'partition_id');
  v_keys text[];
  v_prefix text := nullif(p_request ->> 'key_prefix', '');
  v_ripe numeric := CASE WHEN jsonb_typeof(p_request -> 'ripe_at_or_before') = 'number'
                         THEN (p_request ->> 'ripe_at_or_before')::numeric END;
  q queen.stream_queries := queen_internal.stream_query_of(v_tenant, p_request ->> 'query_id');
  v_rows jsonb;
  v_count bigint;
BEGIN
  IF queen_internal.uuid_or_null(p_request ->> 'query_id') IS NULL THEN
    RETURN jsonb_build_object('success', false, 'error', 'query_id must be a UUID');
  ELSIF v_partition_id IS NULL THEN
    RETURN jsonb_build_object('success', false, 'error', 'partition_id must be a UUID');
  END IF;
  IF jsonb_typeof(p_request -> 'keys') = 'array' AND jsonb_array_length(p_request -> 'keys') > 0 THEN
    PERFORM queen_internal.check_stream_limit('max_read_keys', 'keys', jsonb_array_length(p_request -> 'keys'));
    SELECT array_agg(k) INTO v_keys FROM jsonb_array_elements_text(p_request -> 'keys') k;
  END IF;
  IF q.id IS NULL THEN
    RETURN jsonb_build_object('success', true, 'rows', '[]'::jsonb);  -- an unknown shard is empty
  END IF;

  SELECT count(*), coalesce(jsonb_agg(jsonb_build_object('key', r.key, 'value', r.value, 'updated_at', r.updated_at)
                                      ORDER BY r.key), '[]'::jsonb)
    INTO v_count, v_rows
    FROM (SELECT s.key, s.value, s.updated_at
            FROM queen.stream_state s
           WHERE s.query_id = q.id AND s.partition_id = v_partition_id
             AND (v_keys IS NULL OR s.key = ANY (v_keys))
             -- an exact prefix: a range of the C-collated key, no pattern characters
             AND (v_prefix IS NULL OR (s.key >= v_prefix AND left(s.key, length(v_prefix)) = v_prefix))
             AND (v_ripe IS NULL OR (jsonb_typeof(s.value -> 'windowEnd') = 'number'
                                     AND (s.value ->> 'windowEnd')::numeric <= v_ripe))
           ORDER BY s.key
           LIMIT queen_internal.stream_limit('max_read_keys') + 1) r;
  PERFORM queen_internal.check_stream_limit('max_read_keys', 'state rows read', v_count);
  RETURN jsonb_build_object('success', true, 'rows', v_rows);
END;
$$;
COMMENT ON FUNCTION queen.stream_state_get(jsonb, text) IS
  'POST /streams/v1/state/get for tenant p_tenant. p_request {query_id, partition_id, keys?, key_prefix?, ripe_at_or_before?}: the rows of the shard, by key, filtered (ANDed) by exact keys, an exact key prefix and value.windowEnd <= ripe_at_or_before (a JSON number). {success:true, rows:[{key, value, updated_at}]}; another tenant''s or an unknown query reads empty; success:false when an id is not a UUID. 22023 past QUEEN_STREAM_MAX_READ_KEYS (keys given or rows read).';

-- ------------------------------------------------------------------- cycle
-- What a cycle's state operations leave behind: only the last operation of each
-- key decides what the key holds afterwards (ops apply in order), so they apply
-- as one delete and one upsert statement. bytes: key plus value as written.
CREATE FUNCTION queen_internal.stream_final_ops(p_ops jsonb)
RETURNS TABLE (key text, upsert bool, value jsonb, bytes bigint)
LANGUAGE sql IMMUTABLE AS $$
  SELECT DISTINCT ON (o.e ->> 'key') o.e ->> 'key', o.e ->> 'type' = 'upsert', v.value,
         (octet_length(o.e ->> 'key') + octet_length(v.value::text))::bigint
    FROM jsonb_array_elements(p_ops) WITH ORDINALITY AS o(e, ord)
    CROSS JOIN LATERAL (SELECT coalesce(nullif(o.e -> 'value', 'null'::jsonb), '{}'::jsonb) AS value) v
   ORDER BY o.e ->> 'key', o.ord DESC
$$;
COMMENT ON FUNCTION queen_internal.stream_final_ops(jsonb) IS
  'Internal to apply_stream_state_ops: per key of the state ops, the last op (upsert or not), its value ({} when none) and its counted bytes.';

-- Applies the state operations of a cycle to one shard and keeps the tenant's
-- usage. Returns how many operations there were (a delete of a missing key
-- counts). Raises QS001 on an unknown type or a bad key, 22023 past a bound.
CREATE FUNCTION queen_internal.apply_stream_state_ops(q queen.stream_queries, p_partition_id uuid, p_ops jsonb,
                                                      p_now timestamptz)
RETURNS int
LANGUAGE plpgsql AS $$
DECLARE
  v_bad text;
  v_count int := jsonb_array_length(p_ops);
  v_old record;
  v_new record;
  v_max_bytes bigint := queen_internal.stream_limit('max_value_bytes');
BEGIN
  IF v_count = 0 THEN
    RETURN 0;
  END IF;
  PERFORM queen_internal.check_stream_limit('max_state_ops', 'state_ops', v_count);
  SELECT coalesce(o ->> 'type', 'null') INTO v_bad FROM jsonb_array_elements(p_ops) o
   WHERE jsonb_typeof(o) IS DISTINCT FROM 'object' OR (o ->> 'type') IS NULL OR (o ->> 'type') NOT IN ('upsert', 'delete')
   LIMIT 1;
  IF FOUND THEN
    RAISE EXCEPTION 'Unknown state_op type: %', v_bad USING ERRCODE = 'QS001';
  END IF;
  PERFORM 1 FROM jsonb_array_elements(p_ops) o
   WHERE jsonb_typeof(o -> 'key') IS DISTINCT FROM 'string' OR octet_length(o ->> 'key') NOT BETWEEN 1 AND 1024;
  IF FOUND THEN
    RAISE EXCEPTION 'state_op key must be a string of 1 to 1024 bytes' USING ERRCODE = 'QS001';
  END IF;
  IF v_max_bytes > 0 THEN
    SELECT f.key, f.bytes - octet_length(f.key) AS value_bytes INTO v_new
      FROM queen_internal.stream_final_ops(p_ops) f WHERE f.upsert AND f.bytes - octet_length(f.key) > v_max_bytes
     LIMIT 1;
    IF FOUND THEN
      RAISE EXCEPTION 'state value of key % (% bytes) exceeds the limit of % (QUEEN_STREAM_MAX_VALUE_BYTES)',
        v_new.key, v_new.value_bytes, v_max_bytes USING ERRCODE = '22023';
    END IF;
  END IF;

  SELECT count(*) AS keys, coalesce(sum(s.counted_bytes), 0)::bigint AS bytes INTO v_old
    FROM queen.stream_state s JOIN queen_internal.stream_final_ops(p_ops) f ON f.key = s.key
   WHERE s.query_id = q.id AND s.partition_id = p_partition_id;
  SELECT count(*) AS keys, coalesce(sum(f.bytes), 0)::bigint AS bytes INTO v_new
    FROM queen_internal.stream_final_ops(p_ops) f WHERE f.upsert;
  -- The quota before any row is written, so a refused cycle leaves no row, TOAST or WAL; add_stream_usage
  -- below checks again, exactly, against cycles of the tenant racing past this check.
  IF v_new.bytes > v_old.bytes AND queen_internal.tenant_quota_limit(q.tenant, 'stream_state_bytes') > 0 THEN
    PERFORM queen_internal.check_tenant_quota(q.tenant, 'stream_state_bytes',
              (SELECT coalesce(sum(u.state_bytes), 0)::bigint FROM queen.stream_usage u WHERE u.tenant = q.tenant)
              + v_new.bytes - v_old.bytes);
  END IF;
  DELETE FROM queen.stream_state s USING queen_internal.stream_final_ops(p_ops) f
   WHERE s.query_id = q.id AND s.partition_id = p_partition_id AND s.key = f.key AND NOT f.upsert;
  INSERT INTO queen.stream_state AS s (query_id, partition_id, key, value, tenant, counted_bytes, updated_at)
  SELECT q.id, p_partition_id, f.key, f.value, q.tenant, f.bytes, p_now
    FROM queen_internal.stream_final_ops(p_ops) f WHERE f.upsert
   ORDER BY f.key
  ON CONFLICT ON CONSTRAINT stream_state_pkey DO UPDATE
     SET value = EXCLUDED.value, counted_bytes = EXCLUDED.counted_bytes, updated_at = EXCLUDED.updated_at;
  PERFORM queen_internal.add_stream_usage(q.tenant, v_new.keys - v_old.keys, v_new.bytes - v_old.bytes);
  RETURN v_count;
END;
$$;
COMMENT ON FUNCTION queen_internal.apply_stream_state_ops(queen.stream_queries, uuid, jsonb, timestamptz) IS
  'Internal to stream_cycle: applies state ops [{type: upsert|delete, key, value?}] in order to one shard (the last op of a key decides), keeps the tenant''s usage; returns the op count. QS001 on an unknown type or a bad key; 22023 past QUEEN_STREAM_MAX_STATE_OPS or QUEEN_STREAM_MAX_VALUE_BYTES; QQ429 past the state quota, raised before any state row is written.';

-- The source ack of a cycle: queen_internal.transaction_ack (the ack of POST /transaction:
-- the message by (transactionId, partition), the lease fence, the cursor moving
-- forward only, failed/dlq dead-lettered at once) followed by the lease release
-- the cycle asks for. Raises QS001 with the reason on a failed ack.
CREATE FUNCTION queen_internal.stream_ack(p_ack jsonb, p_partition_id uuid, p_group text, p_release bool,
                                          p_now timestamptz, p_tenant text)
RETURNS jsonb
LANGUAGE plpgsql AS $$
DECLARE
  v_status text := lower(coalesce(nullif(p_ack ->> 'status', ''), 'completed'));
  v_count bigint := CASE WHEN jsonb_typeof(p_ack -> 'count') = 'number' THEN (p_ack ->> 'count')::numeric::bigint ELSE 1 END;
  v_ack record;
  v_released bool := false;
BEGIN
  IF jsonb_typeof(p_ack -> 'transactionId') IS DISTINCT FROM 'string' OR p_ack ->> 'transactionId' = '' THEN
    RAISE EXCEPTION 'ack.transactionId is required' USING ERRCODE = 'QS001';
  END IF;
  IF v_status NOT IN ('completed', 'success', 'failed', 'dlq') THEN
    RAISE EXCEPTION 'Unknown ack.status: %', p_ack ->> 'status' USING ERRCODE = 'QS001';
  END IF;
  v_ack := queen_internal.transaction_ack(jsonb_build_object(
             'transactionId', p_ack ->> 'transactionId', 'partitionId', p_partition_id, 'consumerGroup', p_group,
             'leaseId', p_ack ->> 'leaseId', 'status', v_status,
             'error', coalesce(nullif(p_ack ->> 'error', ''), 'Streaming cycle reported failure')), p_now, p_tenant);
  IF NOT v_ack.success THEN
    RAISE EXCEPTION '%', v_ack.error USING ERRCODE = 'QS001';
  END IF;
  IF NOT v_ack.dlq AND p_release THEN
    -- transaction_ack releases the lease once the leased batch is passed; a
    -- cycle asking for the release also gives back a lease it acked only part of
    UPDATE queen.consumers c SET lease_id = NULL, lease_expires_at = NULL
     WHERE c.partition_id = p_partition_id AND c.consumer_group = p_group AND c.lease_id IS NOT NULL;
    v_released := true;
  END IF;
  -- failed/dlq: transaction_ack dead-lettered the message and cleared the lease
  RETURN jsonb_build_object('success', true, 'count', CASE WHEN v_ack.dlq THEN 0 ELSE v_count END,
                            'lease_released', v_released OR v_ack.dlq, 'dlq', v_ack.dlq);
END;
$$;
COMMENT ON FUNCTION queen_internal.stream_ack(jsonb, uuid, text, bool, timestamptz, text) IS
  'Internal to stream_cycle: the source ack {transactionId, leaseId?, status? (completed|success|failed|dlq), count?, error?} of partition p_partition_id for group p_group through queen_internal.transaction_ack, then (completed, p_release) the lease cleared. Raises QS001 with Message not found / Invalid or expired lease / Unknown ack.status.';

CREATE FUNCTION queen.stream_cycle(p_cycle jsonb, p_producer_sub text, p_tenant text, p_now timestamptz DEFAULT NULL)
RETURNS jsonb
SECURITY DEFINER
SET search_path = pg_catalog, queen, queen_internal, pg_temp
SET jit = off
LANGUAGE plpgsql AS $$
DECLARE
  v_now timestamptz := coalesce(p_now, now());
  v_tenant text := queen_internal.tenant_arg(p_tenant);
  v_query_id uuid := queen_internal.uuid_or_null(p_cycle ->> 'query_id');
  v_partition_id uuid := queen_internal.uuid_or_null(p_cycle ->> 'partition_id');
  v_group text := coalesce(nullif(p_cycle ->> 'consumer_group', ''), '__QUEUE_MODE__');
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
$$;
COMMENT ON FUNCTION queen.stream_cycle(jsonb, text, text, timestamptz) IS
  'POST /streams/v1/cycle for tenant p_tenant, in one transaction: the state ops of (query_id, partition_id) in order, the push_items through queen.push_messages (producer p_producer_sub; dedup, tenants, encryption as any push; duplicate is not an error), then the source ack {transactionId, leaseId?, status?, count?, error?} for consumer_group with its lease fence, the lease released unless release_lease is false. idempotency_key (our extension): a key already committed for the shard answers {success:true, replayed:true} and changes nothing. A failed check (unknown query, bad op, failed push item, Message not found, Invalid or expired lease, Unknown ack.status) rolls everything back: {success:false, error, ...}. 22023 for a malformed body or past a QUEEN_STREAM_* bound; QQ429 past the state quota.';

-- Who may call them (docs/procedures.md, Roles): the broker its three routes, readers the two reads, DBAs all.
GRANT EXECUTE ON FUNCTION queen.stream_register_query, queen.stream_cycle, queen.stream_state_get TO queen_broker;
GRANT EXECUTE ON FUNCTION queen.stream_state_get, queen.stream_usage_of TO queen_reader;
GRANT EXECUTE ON FUNCTION queen.stream_register_query, queen.stream_cycle, queen.stream_state_get,
                          queen.stream_usage_of TO queen_admin;

COMMIT;
