CREATE OR REPLACE FUNCTION queen.kv_set(p_key text, p_value jsonb, p_ttl_ms bigint, p_tenant text, p_now timestamp with time zone DEFAULT NULL::timestamp with time zone)
 RETURNS timestamp with time zone
 LANGUAGE plpgsql SECURITY DEFINER SET search_path TO 'pg_catalog', 'queen', 'queen_internal', 'pg_temp' AS $function$
DECLARE
  v_now        timestamptz := coalesce(p_now, clock_timestamp());
  v_tenant     text := queen_internal.tenant_arg(p_tenant);
  v_expires_at timestamptz;
BEGIN
  PERFORM queen_internal.kv_check_key(p_key);
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
$function$;

COMMENT ON FUNCTION queen.kv_set(p_key text, p_value jsonb, p_ttl_ms bigint, p_tenant text, p_now timestamp with time zone) IS 'Stores p_value under p_key of tenant p_tenant ('''' = default; insert or replace). p_ttl_ms null = no expiry, 0 = expired at once; the TTL counts from p_now (null = clock_timestamp()). Returns the new expires_at (null without TTL). 22023 on a bad key, SQL NULL value or negative TTL.';
GRANT EXECUTE ON FUNCTION queen.kv_set(p_key text, p_value jsonb, p_ttl_ms bigint, p_tenant text, p_now timestamp with time zone) TO queen_admin, queen_broker;
