CREATE OR REPLACE FUNCTION queen.extend_lease(p_lease_id uuid, p_seconds integer, p_tenant text, p_now timestamp with time zone DEFAULT NULL::timestamp with time zone)
 RETURNS TABLE(success boolean, expires_at timestamp with time zone, error text)
 LANGUAGE plpgsql SECURITY DEFINER SET search_path TO 'pg_catalog', 'queen', 'queen_internal', 'pg_temp' AS $function$
#variable_conflict use_column
DECLARE
  v_now timestamptz := coalesce(p_now, now());
  v_seconds int := coalesce(p_seconds, 60);
  v_tenant text := queen_internal.tenant_arg(p_tenant);
  v_expires_at timestamptz;
BEGIN
  PERFORM queen_internal.check_at_least('seconds', v_seconds, 1);
  -- Another tenant's lease does not exist for this caller.
  IF NOT EXISTS (SELECT 1 FROM queen.consumers c
                   JOIN queen.partitions p ON p.id = c.partition_id
                   JOIN queen.queues q ON q.id = p.queue_id AND q.tenant = v_tenant
                  WHERE c.lease_id = p_lease_id) THEN
    RETURN QUERY SELECT false, NULL::timestamptz, 'Lease not found'::text;
    RETURN;
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
$function$;

COMMENT ON FUNCTION queen.extend_lease(p_lease_id uuid, p_seconds integer, p_tenant text, p_now timestamp with time zone) IS 'Renews every unexpired lease with id p_lease_id (a lease on a queue of tenant p_tenant, '''' = default; another tenant''s lease is not found) to max(expiry, p_now + p_seconds) (p_now null = now()); never revives an expired lease and never touches cursor, n, k or retries. One row: (true, new expiry, null) or (false, null, Lease not found | Lease already expired).';
GRANT EXECUTE ON FUNCTION queen.extend_lease(p_lease_id uuid, p_seconds integer, p_tenant text, p_now timestamp with time zone) TO queen_admin, queen_broker;
