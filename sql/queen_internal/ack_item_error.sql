CREATE OR REPLACE FUNCTION queen_internal.ack_item_error(p_seq bigint, p_status text, p_lease_text text, p_lease_given uuid, p_start_lease_id uuid, p_start_failed_lease_id uuid)
 RETURNS text
 LANGUAGE sql IMMUTABLE AS $function$
  SELECT CASE
    WHEN p_seq IS NULL THEN 'Message not found'
    WHEN p_status NOT IN ('completed', 'success', 'failed', 'dlq', 'retry') THEN 'Invalid status'
    -- a lease id, when given, must be the lease held at request start; a failed or
    -- retry ack may also name the lease a failure already released (a no-op)
    WHEN NOT (p_lease_text IS NULL
              OR coalesce(p_lease_given = p_start_lease_id, false)
              OR (p_status IN ('failed', 'retry') AND coalesce(p_lease_given = p_start_failed_lease_id, false)))
      THEN 'Invalid or expired lease'
  END
$function$;

COMMENT ON FUNCTION queen_internal.ack_item_error(p_seq bigint, p_status text, p_lease_text text, p_lease_given uuid, p_start_lease_id uuid, p_start_failed_lease_id uuid) IS 'Internal to apply_acks: why an ack item fails (Message not found, Invalid status, Invalid or expired lease), or null. p_lease_given is p_lease_text as a uuid; the lease rule compares it with the cursor''s lease at request start (null when none or expired) and its failed_lease_id. Inlined by the planner.';
