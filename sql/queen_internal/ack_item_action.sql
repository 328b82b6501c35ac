CREATE OR REPLACE FUNCTION queen_internal.ack_item_action(p_status text, p_seq bigint, p_cursor_seq bigint, p_retry_count integer, p_retry_limit integer, p_failed_here boolean, p_lease_given uuid, p_start_lease_id uuid, p_start_failed_lease_id uuid)
 RETURNS text
 LANGUAGE sql IMMUTABLE AS $function$
  SELECT CASE
    WHEN p_status = 'retry' THEN CASE WHEN p_seq > p_cursor_seq THEN 'give back' ELSE 'none' END
    WHEN p_status = 'failed' AND p_seq <= p_cursor_seq THEN 'none'  -- already consumed: nothing to redeliver
    WHEN p_status = 'failed'
         AND (p_failed_here OR (coalesce(p_lease_given = p_start_failed_lease_id, false)
                                AND p_lease_given IS DISTINCT FROM p_start_lease_id))
      THEN 'none'  -- this batch was already released by a failure: one failed batch costs one retry
    WHEN p_status = 'failed' AND p_retry_count < p_retry_limit THEN 'fail'
    ELSE 'consume'  -- completed / success, dlq, or failed with retries exhausted
  END
$function$;

COMMENT ON FUNCTION queen_internal.ack_item_action(p_status text, p_seq bigint, p_cursor_seq bigint, p_retry_count integer, p_retry_limit integer, p_failed_here boolean, p_lease_given uuid, p_start_lease_id uuid, p_start_failed_lease_id uuid) IS 'Internal to apply_acks: what a valid ack item does to its cursor: give back (retry: release without spending a retry), fail (the batch''s first failure: release for redelivery after retryDelay), consume (completed, dlq, or failed with retries exhausted: move the cursor, dead-letter when dlq or failed) or none. p_failed_here: a failure of this request already released the batch. Inlined by the planner.';
