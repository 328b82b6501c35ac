CREATE OR REPLACE FUNCTION queen_internal.lock_ack_cursor(p_partition_id uuid, p_group text)
 RETURNS queen.consumers
 LANGUAGE plpgsql AS $function$
DECLARE
  c queen.consumers;
BEGIN
  SELECT * INTO c FROM queen.consumers cc
   WHERE cc.partition_id = p_partition_id AND cc.consumer_group = p_group FOR UPDATE;
  IF NOT FOUND THEN
    PERFORM queen_internal.ensure_consumer(p_partition_id, p_group);
    SELECT * INTO c FROM queen.consumers cc
     WHERE cc.partition_id = p_partition_id AND cc.consumer_group = p_group FOR UPDATE;
  END IF;
  RETURN c;
END;
$function$;

COMMENT ON FUNCTION queen_internal.lock_ack_cursor(p_partition_id uuid, p_group text) IS 'Internal to ack_messages: the cursor row of (p_partition_id, p_group) locked FOR UPDATE, created at the group''s start point when missing.';
