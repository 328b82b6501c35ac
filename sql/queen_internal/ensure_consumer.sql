CREATE OR REPLACE FUNCTION queen_internal.ensure_consumer(p_partition_id uuid, p_group text)
 RETURNS void
 LANGUAGE plpgsql AS $function$
BEGIN
  INSERT INTO queen.consumers (partition_id, consumer_group, queue_id, cursor_seq)
  SELECT p.id, p_group, p.queue_id,
         CASE WHEN p_group = queen_internal.queue_mode_group() THEN 0
              ELSE queen_internal.start_cursor(p.id, p.last_seq, p.last_message_at,
                                      queen_internal.subscription_start_at(p_group, p.queue_id, p.name)) END
    FROM queen.partitions p
   WHERE p.id = p_partition_id
     AND NOT EXISTS (SELECT 1 FROM queen.consumers c WHERE c.partition_id = p_partition_id AND c.consumer_group = p_group)
  ON CONFLICT ON CONSTRAINT consumers_pkey DO NOTHING;
END;
$function$;

COMMENT ON FUNCTION queen_internal.ensure_consumer(p_partition_id uuid, p_group text) IS 'Creates the consumers row of (partition, group) if missing, at the group''s subscription start point.';
