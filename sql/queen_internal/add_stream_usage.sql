-- ------------------------------------------------------------------- usage
-- Adds deltas to this session's stripe of p_tenant; growth is checked against
-- the tenant's quota (queen_internal.check_tenant_quota with quota stream_state_bytes:
-- session setting queen.tenant_max_stream_state_bytes, QQ429 past it).
CREATE OR REPLACE FUNCTION queen_internal.add_stream_usage(p_tenant text, p_keys bigint, p_bytes bigint)
 RETURNS void
 LANGUAGE plpgsql AS $function$
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
$function$;

COMMENT ON FUNCTION queen_internal.add_stream_usage(p_tenant text, p_keys bigint, p_bytes bigint) IS 'Adds key and byte deltas to this session''s stripe of p_tenant''s stream usage (give-back on separate stripes); growth past QUEEN_TENANT_MAX_STREAM_STATE_BYTES raises QQ429.';
