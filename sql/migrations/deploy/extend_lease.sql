-- Deploy queen:extend_lease to pg
BEGIN;

CREATE FUNCTION queen.extend_lease(p_lease_id uuid, p_seconds int DEFAULT 60)
RETURNS TABLE (success bool, expires_at timestamptz, error text)
LANGUAGE plpgsql AS $$
#variable_conflict use_column
DECLARE
  v_now timestamptz := now();
  v_seconds int := coalesce(p_seconds, 60);
  v_expires_at timestamptz;
BEGIN
  IF v_seconds < 1 THEN
    RAISE EXCEPTION 'seconds must be >= 1, got %', p_seconds USING ERRCODE = '22023';
  END IF;
  -- every partition of a multi-partition pop carries the same lease id; never revive an expired one
  UPDATE queen.consumers c
     SET lease_expires_at = greatest(c.lease_expires_at, v_now + v_seconds * interval '1 second')
   WHERE c.lease_id = p_lease_id AND c.lease_expires_at > v_now;
  IF FOUND THEN
    SELECT max(c.lease_expires_at) INTO v_expires_at FROM queen.consumers c WHERE c.lease_id = p_lease_id;
    RETURN QUERY SELECT true, v_expires_at, NULL::text;
  ELSIF EXISTS (SELECT 1 FROM queen.consumers c WHERE c.lease_id = p_lease_id) THEN
    RETURN QUERY SELECT false, NULL::timestamptz, 'Lease already expired'::text;
  ELSE
    RETURN QUERY SELECT false, NULL::timestamptz, 'Lease not found'::text;
  END IF;
END;
$$;
COMMENT ON FUNCTION queen.extend_lease(uuid, int) IS
  'Renews every unexpired lease with id p_lease_id to max(expiry, now + p_seconds); never revives an expired lease and never touches cursor, n, k or retries. One row: (true, new expiry, null) or (false, null, Lease not found | Lease already expired).';

COMMIT;
