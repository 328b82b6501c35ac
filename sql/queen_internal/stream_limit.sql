-- ------------------------------------------------------------------ limits
-- The bounds of one request. Each is a session setting the broker sets from its
-- QUEEN_STREAM_* variable on every connection; a session without it (a DBA's
-- psql) gets the broker's default.
CREATE OR REPLACE FUNCTION queen_internal.stream_limit(p_name text)
 RETURNS bigint
 LANGUAGE sql STABLE AS $function$
  SELECT coalesce(nullif(current_setting('queen.stream_' || p_name, true), '')::bigint,
                  CASE p_name WHEN 'max_value_bytes' THEN 1048576
                              WHEN 'max_state_ops' THEN 10000
                              WHEN 'max_push_items' THEN 10000
                              WHEN 'max_read_keys' THEN 10000 END)
$function$;

COMMENT ON FUNCTION queen_internal.stream_limit(p_name text) IS 'A stream request bound: session setting queen.stream_<p_name> (max_value_bytes, max_state_ops, max_push_items, max_read_keys), else the broker default.';
