-- Deploy queen:kv to pg
-- The KV store: one JSON value per key with an optional time to live.
-- Expiry is decided by reads (an expired row reads as absent at once); deleting
-- the expired rows is housekeeping done by every broker's sweeper in bounded batches.

BEGIN;

CREATE TABLE queen.kv (
  tenant     queen.tenant_text NOT NULL DEFAULT '',  -- each tenant has its own keys (docs/tenants.md)
  key        queen.name_text NOT NULL,
  value      jsonb NOT NULL,
  expires_at timestamptz,
  updated_at timestamptz NOT NULL DEFAULT clock_timestamp(),
  CONSTRAINT kv_pkey PRIMARY KEY (tenant, key)
);
COMMENT ON TABLE queen.kv IS
  'KV store: a JSON value per (tenant, key); expires_at null = no TTL. Rows past expires_at read as absent and are pruned by queen.kv_prune_expired.';

-- Only rows with a TTL are ever pruned: keep the index to them.
CREATE INDEX kv_expires_at_idx ON queen.kv (expires_at) WHERE expires_at IS NOT NULL;

-- One place for the key rules, shared by every KV procedure.
CREATE FUNCTION queen.kv_check_key(p_key text) RETURNS void
LANGUAGE plpgsql IMMUTABLE AS $$
BEGIN
  IF p_key IS NULL OR p_key = '' THEN
    RAISE EXCEPTION 'kv key is required' USING ERRCODE = '22023';
  END IF;
  IF queen.name_problem(p_key) IS NOT NULL THEN
    RAISE EXCEPTION 'kv key % (%)', queen.name_problem(p_key), length(p_key) USING ERRCODE = '22023';
  END IF;
END;
$$;
COMMENT ON FUNCTION queen.kv_check_key(text) IS
  'Raises 22023 when a KV key is null, empty or longer than queen.name_max_chars() (255) characters.';

-- Whether a row with this expires_at reads as present at p_now: the TTL rule of
-- every read.
CREATE FUNCTION queen.kv_is_live(p_expires_at timestamptz, p_now timestamptz) RETURNS boolean
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$ SELECT p_expires_at IS NULL OR p_expires_at > p_now $$;
COMMENT ON FUNCTION queen.kv_is_live(timestamptz, timestamptz) IS
  'True when a KV row expiring at p_expires_at (null = never) is still live at p_now.';

CREATE FUNCTION queen.kv_set(p_key text, p_value jsonb, p_ttl_ms bigint, p_tenant text,
                             p_now timestamptz DEFAULT NULL)
RETURNS timestamptz
LANGUAGE plpgsql AS $$
DECLARE
  v_now        timestamptz := coalesce(p_now, clock_timestamp());
  v_tenant     text := queen.tenant_arg(p_tenant);
  v_expires_at timestamptz;
BEGIN
  PERFORM queen.kv_check_key(p_key);
  IF p_value IS NULL THEN
    -- JSON null is a value ('null'::jsonb); SQL NULL means the caller forgot it.
    RAISE EXCEPTION 'kv value is required (use JSON null to store null)' USING ERRCODE = '22023';
  END IF;
  IF p_ttl_ms < 0 THEN
    RAISE EXCEPTION 'kv ttlMs must not be negative (%)', p_ttl_ms USING ERRCODE = '22023';
  END IF;
  IF p_ttl_ms IS NOT NULL THEN
    v_expires_at := v_now + p_ttl_ms * interval '1 millisecond';
  END IF;
  INSERT INTO queen.kv AS k (tenant, key, value, expires_at, updated_at)
  VALUES (v_tenant, p_key, p_value, v_expires_at, v_now)
  ON CONFLICT ON CONSTRAINT kv_pkey DO UPDATE
    SET value = EXCLUDED.value, expires_at = EXCLUDED.expires_at, updated_at = EXCLUDED.updated_at;
  RETURN v_expires_at;
END;
$$;
COMMENT ON FUNCTION queen.kv_set(text, jsonb, bigint, text, timestamptz) IS
  'Stores p_value under p_key of tenant p_tenant ('''' = default; insert or replace). p_ttl_ms null = no expiry, 0 = expired at once; the TTL counts from p_now (null = clock_timestamp()). Returns the new expires_at (null without TTL). 22023 on a bad key, SQL NULL value or negative TTL.';

CREATE FUNCTION queen.kv_get(p_key text, p_tenant text, p_now timestamptz DEFAULT NULL)
RETURNS TABLE (value jsonb, expires_at timestamptz)
LANGUAGE plpgsql STABLE AS $$
BEGIN
  PERFORM queen.kv_check_key(p_key);
  RETURN QUERY
    SELECT k.value, k.expires_at
      FROM queen.kv k
     WHERE k.tenant = queen.tenant_arg(p_tenant) AND k.key = p_key
       AND queen.kv_is_live(k.expires_at, coalesce(p_now, clock_timestamp()));
END;
$$;
COMMENT ON FUNCTION queen.kv_get(text, text, timestamptz) IS
  'The value and expires_at of p_key of tenant p_tenant ('''' = default); no row when the key is absent or its TTL has passed at p_now (null = clock_timestamp()), even before the sweeper deletes it. 22023 on a bad key.';

CREATE FUNCTION queen.kv_delete(p_key text, p_tenant text, p_now timestamptz DEFAULT NULL) RETURNS boolean
LANGUAGE plpgsql AS $$
DECLARE
  v_was_live boolean;
BEGIN
  PERFORM queen.kv_check_key(p_key);
  DELETE FROM queen.kv k
   WHERE k.tenant = queen.tenant_arg(p_tenant) AND k.key = p_key
  RETURNING queen.kv_is_live(k.expires_at, coalesce(p_now, clock_timestamp())) INTO v_was_live;
  -- An expired row is removed too, but it already read as absent: report false.
  RETURN coalesce(v_was_live, false);
END;
$$;
COMMENT ON FUNCTION queen.kv_delete(text, text, timestamptz) IS
  'Deletes p_key of tenant p_tenant ('''' = default). True when a value live at p_now (null = clock_timestamp()) was deleted, false when the key was absent or already expired. 22023 on a bad key.';

CREATE FUNCTION queen.kv_prune_expired(p_limit int, p_now timestamptz DEFAULT NULL) RETURNS int
LANGUAGE plpgsql AS $$
DECLARE
  v_deleted int;
BEGIN
  PERFORM queen.check_at_least('kv_prune_expired limit', p_limit, 1);
  -- SKIP LOCKED: every broker prunes in parallel without waiting on the others.
  WITH expired AS (
    SELECT k.tenant, k.key
      FROM queen.kv k
     WHERE k.expires_at <= coalesce(p_now, clock_timestamp())
     ORDER BY k.expires_at
     LIMIT p_limit
       FOR UPDATE SKIP LOCKED
  )
  DELETE FROM queen.kv k USING expired e WHERE k.tenant = e.tenant AND k.key = e.key;
  GET DIAGNOSTICS v_deleted = ROW_COUNT;
  RETURN v_deleted;
END;
$$;
COMMENT ON FUNCTION queen.kv_prune_expired(int, timestamptz) IS
  'Deletes at most p_limit KV rows expired at p_now (null = clock_timestamp()), oldest expiry first, rows locked by another pruner skipped. Returns the number deleted. 22023 when p_limit < 1.';

COMMIT;
