CREATE OR REPLACE FUNCTION queen_internal.store_ack_state(c queen.consumers, p_start_cursor bigint, p_now timestamp with time zone, p_last_seq bigint)
 RETURNS boolean
 LANGUAGE plpgsql AS $function$
DECLARE
  v_settle bool;
BEGIN
  UPDATE queen.consumers t
     SET cursor_seq = c.cursor_seq,
         lease_id = c.lease_id,
         lease_expires_at = c.lease_expires_at,
         lease_acked = c.lease_acked,
         retry_count = c.retry_count,
         failed_lease_id = c.failed_lease_id,
         available_at = c.available_at,
         total_consumed = t.total_consumed + (c.cursor_seq - p_start_cursor),
         last_consumed_at = CASE WHEN c.cursor_seq > p_start_cursor THEN p_now ELSE t.last_consumed_at END
   WHERE t.partition_id = c.partition_id AND t.consumer_group = c.consumer_group
  RETURNING t.pending AND c.cursor_seq > p_start_cursor AND c.cursor_seq >= p_last_seq INTO v_settle;
  RETURN v_settle;
END;
$function$;

COMMENT ON FUNCTION queen_internal.store_ack_state(c queen.consumers, p_start_cursor bigint, p_now timestamp with time zone, p_last_seq bigint) IS 'Internal to ack_messages: writes back a cursor row (cursor, lease, retries, retryDelay gate) and counts the cursor movement as consumed messages. True when the pending row''s cursor moved up to p_last_seq (a row to settle).';
