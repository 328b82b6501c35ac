CREATE OR REPLACE FUNCTION queen_internal.release_ack_batch(c queen.consumers, p_failed boolean, p_available_at timestamp with time zone)
 RETURNS queen.consumers
 LANGUAGE plpgsql IMMUTABLE AS $function$
BEGIN
  IF p_failed THEN
    -- the batch's first failure: one retry spent, redelivered from p_available_at (retryDelay)
    c.retry_count := c.retry_count + 1;
    c.available_at := p_available_at;
  END IF;
  IF c.lease_id IS NOT NULL THEN
    IF p_failed THEN
      c.failed_lease_id := c.lease_id;
    END IF;
    c.lease_id := NULL; c.lease_expires_at := NULL;
  END IF;
  RETURN c;
END;
$function$;

COMMENT ON FUNCTION queen_internal.release_ack_batch(c queen.consumers, p_failed boolean, p_available_at timestamp with time zone) IS 'Internal to apply_acks: cursor row c with its lease released (give back, or a first failure when p_failed: then also retry_count + 1, available_at = p_available_at and failed_lease_id = the released lease). Called for retry and failed items only, never for a completed one.';
