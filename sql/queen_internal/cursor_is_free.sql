CREATE OR REPLACE FUNCTION queen_internal.cursor_is_free(p_lease_id uuid, p_lease_expires_at timestamp with time zone, p_available_at timestamp with time zone, p_retry_delay_ms integer, p_now timestamp with time zone)
 RETURNS boolean
 LANGUAGE sql STABLE AS $function$
  SELECT (p_lease_id IS NULL OR p_lease_expires_at + p_retry_delay_ms * interval '1 millisecond' <= p_now)
     AND (p_available_at IS NULL OR p_available_at <= p_now)
$function$;

COMMENT ON FUNCTION queen_internal.cursor_is_free(p_lease_id uuid, p_lease_expires_at timestamp with time zone, p_available_at timestamp with time zone, p_retry_delay_ms integer, p_now timestamp with time zone) IS 'True when a cursor row (lease id, lease expiry, retryDelay gate) is claimable at p_now under a queue retryDelay of p_retry_delay_ms.';
