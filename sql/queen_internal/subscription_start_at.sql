CREATE OR REPLACE FUNCTION queen_internal.subscription_start_at(p_group text, p_queue_id uuid, p_partition_name text, p_filter_namespace text DEFAULT NULL::text, p_filter_task text DEFAULT NULL::text, p_tenant text DEFAULT ''::text)
 RETURNS timestamp with time zone
 LANGUAGE sql STABLE AS $function$
  SELECT s.start_at
    FROM queen.subscriptions s
   WHERE s.consumer_group = p_group
     AND ((s.queue_id = p_queue_id AND s.partition_name IN (p_partition_name, ''))
          OR (s.queue_id IS NULL AND (p_filter_namespace IS NOT NULL OR p_filter_task IS NOT NULL)
              AND s.tenant = p_tenant AND s.filter_namespace IS NOT DISTINCT FROM p_filter_namespace
              AND s.filter_task IS NOT DISTINCT FROM p_filter_task))
   ORDER BY (s.partition_name <> '') DESC, (s.queue_id IS NOT NULL) DESC
   LIMIT 1
$function$;

COMMENT ON FUNCTION queen_internal.subscription_start_at(p_group text, p_queue_id uuid, p_partition_name text, p_filter_namespace text, p_filter_task text, p_tenant text) IS 'Start time of a named group on a partition it has no cursor on: partition record, else queue record, else namespace/task filter record of tenant p_tenant; null = from the beginning.';
