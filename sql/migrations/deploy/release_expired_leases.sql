-- Deploy queen:release_expired_leases to pg
BEGIN;

CREATE FUNCTION queen.release_expired_leases(p_now timestamptz DEFAULT NULL) RETURNS int
LANGUAGE plpgsql AS $$
DECLARE
  v_released int;
BEGIN
  -- Pop already treats an expired lease as free; this only tidies rows for DBAs and
  -- dashboards. The retryDelay gate of the expiry is kept in available_at.
  UPDATE queen.consumers c
     SET lease_id = NULL,
         lease_expires_at = NULL,
         available_at = greatest(c.available_at, c.lease_expires_at + q.retry_delay_ms * interval '1 millisecond')
    FROM queen.partitions p
    JOIN queen.queues q ON q.id = p.queue_id
   WHERE p.id = c.partition_id
     AND c.lease_id IS NOT NULL AND c.lease_expires_at <= coalesce(p_now, now());
  GET DIAGNOSTICS v_released = ROW_COUNT;
  RETURN v_released;
END;
$$;
COMMENT ON FUNCTION queen.release_expired_leases(timestamptz) IS
  'Housekeeping: clears leases whose expiry passed by p_now (null = now()) (pop already treats them as free), keeping their retryDelay gate; returns how many were cleared.';

COMMIT;
