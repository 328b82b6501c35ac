CREATE OR REPLACE FUNCTION queen_internal.select_dead_letters(p_queue text, p_group text, p_partition text, p_from timestamp with time zone, p_to timestamp with time zone, p_message_id uuid, p_limit integer, p_tenant text)
 RETURNS TABLE(message_id uuid, consumer_group text)
 LANGUAGE sql AS $function$
  -- FOR UPDATE cannot name a function's rows: the matching keys are chosen first, then locked
  SELECT d.message_id, d.consumer_group::text
    FROM queen.dlq d
   WHERE (d.message_id, d.consumer_group::text) IN
         (SELECT f.message_id, f.consumer_group
            FROM queen_internal.dlq_matching(p_tenant, p_queue, p_group, p_partition, p_from, p_to, p_message_id) f
           ORDER BY f.failed_at, f.message_id, f.consumer_group
           LIMIT p_limit)
   ORDER BY d.failed_at, d.message_id, d.consumer_group
     FOR UPDATE OF d
$function$;

COMMENT ON FUNCTION queen_internal.select_dead_letters(p_queue text, p_group text, p_partition text, p_from timestamp with time zone, p_to timestamp with time zone, p_message_id uuid, p_limit integer, p_tenant text) IS 'Internal to requeue_dead_letters/delete_dead_letters: the matching DLQ keys of tenant p_tenant, oldest failure first, at most p_limit, row-locked.';
