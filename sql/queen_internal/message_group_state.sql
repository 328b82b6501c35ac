CREATE OR REPLACE FUNCTION queen_internal.message_group_state(c queen.consumers, p_seq bigint, p_now timestamp with time zone)
 RETURNS text
 LANGUAGE sql STABLE AS $function$
  SELECT CASE WHEN c.cursor_seq >= p_seq THEN 'completed'
              WHEN c.lease_id IS NOT NULL AND c.lease_expires_at > p_now AND p_seq <= c.lease_max_seq THEN 'processing'
              ELSE 'pending' END
$function$;

COMMENT ON FUNCTION queen_internal.message_group_state(c queen.consumers, p_seq bigint, p_now timestamp with time zone) IS 'completed / processing / pending: the message at p_seq as the cursor row c sees it at p_now.';
