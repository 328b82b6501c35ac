CREATE OR REPLACE FUNCTION queen_internal.register_consumer_group(p_queue_id uuid, p_group text, p_filter_namespace text DEFAULT NULL::text, p_filter_task text DEFAULT NULL::text, p_tenant text DEFAULT ''::text)
 RETURNS void
 LANGUAGE plpgsql AS $function$
DECLARE
  v_partition_ids uuid[];
BEGIN
  PERFORM 1 FROM queen.queues q WHERE q.id = p_queue_id FOR UPDATE;
  INSERT INTO queen.consumer_groups (queue_id, consumer_group) VALUES (p_queue_id, p_group)
  ON CONFLICT ON CONSTRAINT consumer_groups_pkey DO NOTHING;
  v_partition_ids := ARRAY(SELECT p.id FROM queen.partitions p WHERE p.queue_id = p_queue_id ORDER BY p.id);
  PERFORM queen_internal.create_cursors(v_partition_ids, p_group, p_filter_namespace, p_filter_task, p_tenant);
  PERFORM queen_internal.settle_drained(p_group, v_partition_ids);
END;
$function$;

COMMENT ON FUNCTION queen_internal.register_consumer_group(p_queue_id uuid, p_group text, p_filter_namespace text, p_filter_task text, p_tenant text) IS 'Internal to pop_messages: a group''s first wildcard or filter pop on a queue registers it and creates its cursor rows on every partition at its start point.';
