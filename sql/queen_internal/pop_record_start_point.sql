CREATE OR REPLACE FUNCTION queen_internal.pop_record_start_point(p_tenant text, p_group text, p_queue_ids uuid[], p_partition text, p_specific uuid, p_namespace text, p_task text, p_mode text, p_from text, p_now timestamp with time zone)
 RETURNS void
 LANGUAGE plpgsql AS $function$
DECLARE
  v_requested record := queen_internal.requested_subscription(p_mode, p_from, p_now);
  v_is_filter bool := p_namespace IS NOT NULL OR p_task IS NOT NULL;
BEGIN
  IF v_requested.mode IS NULL THEN
    RETURN;
  END IF;
  IF p_partition IS NULL THEN
    IF EXISTS (SELECT 1 FROM unnest(p_queue_ids) AS u(queue_id)
                WHERE EXISTS (SELECT 1 FROM queen.consumers c
                               WHERE c.queue_id = u.queue_id AND c.consumer_group = p_group)) THEN
      RETURN;
    END IF;
  ELSIF EXISTS (SELECT 1 FROM queen.consumers c WHERE c.partition_id = p_specific AND c.consumer_group = p_group) THEN
    RETURN;
  END IF;
  IF v_is_filter THEN
    INSERT INTO queen.subscriptions (tenant, consumer_group, queue_id, partition_name, filter_namespace, filter_task, mode, start_at)
    VALUES (p_tenant, p_group, NULL, '', p_namespace, p_task, v_requested.mode, v_requested.start_at)
    ON CONFLICT ON CONSTRAINT subscriptions_scope_key DO NOTHING;
  ELSE
    INSERT INTO queen.subscriptions (consumer_group, queue_id, partition_name, mode, start_at)
    SELECT p_group, p_queue_ids[1], coalesce(p_partition, ''), v_requested.mode, v_requested.start_at
     WHERE NOT EXISTS (SELECT 1 FROM queen.subscriptions s
                        WHERE s.consumer_group = p_group AND s.queue_id = p_queue_ids[1]
                          AND s.partition_name IN ('', coalesce(p_partition, '')))
    ON CONFLICT ON CONSTRAINT subscriptions_scope_key DO NOTHING;
  END IF;
END;
$function$;

COMMENT ON FUNCTION queen_internal.pop_record_start_point(p_tenant text, p_group text, p_queue_ids uuid[], p_partition text, p_specific uuid, p_namespace text, p_task text, p_mode text, p_from text, p_now timestamp with time zone) IS 'Internal to pop_messages: stores the start point a named group''s first pop asks for (subscriptionMode/subscriptionFrom) as a partition, queue or namespace/task record; a group with cursor rows keeps its start point.';
