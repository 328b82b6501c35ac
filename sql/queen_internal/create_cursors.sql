CREATE OR REPLACE FUNCTION queen_internal.create_cursors(p_partition_ids uuid[], p_group text, p_filter_namespace text DEFAULT NULL::text, p_filter_task text DEFAULT NULL::text, p_tenant text DEFAULT ''::text)
 RETURNS void
 LANGUAGE sql AS $function$
  INSERT INTO queen.consumers (partition_id, consumer_group, queue_id, cursor_seq)
  SELECT p.id, p_group, p.queue_id,
         CASE WHEN p_group = queen_internal.queue_mode_group() THEN 0
              ELSE queen_internal.start_cursor(p.id, p.last_seq, p.last_message_at,
                                      queen_internal.subscription_start_at(p_group, p.queue_id, p.name, p_filter_namespace,
                                                                  p_filter_task, p_tenant)) END
    FROM queen.partitions p
   WHERE p.id = ANY (p_partition_ids)
   ORDER BY p.id
  ON CONFLICT ON CONSTRAINT consumers_pkey DO NOTHING
$function$;

COMMENT ON FUNCTION queen_internal.create_cursors(p_partition_ids uuid[], p_group text, p_filter_namespace text, p_filter_task text, p_tenant text) IS 'Creates the missing cursor rows of a group on the given partitions at its subscription start point (filter records of p_tenant consulted when a filter is given).';
