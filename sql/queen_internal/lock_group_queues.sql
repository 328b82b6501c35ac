CREATE OR REPLACE FUNCTION queen_internal.lock_group_queues(p_queue_ids uuid[], p_group text)
 RETURNS uuid[]
 LANGUAGE sql AS $function$
  SELECT coalesce(array_agg(x.id ORDER BY x.id), '{}')
    FROM (SELECT q.id FROM queen.queues q
           WHERE q.id = ANY (p_queue_ids)
             AND (EXISTS (SELECT 1 FROM queen.consumer_groups g WHERE g.queue_id = q.id AND g.consumer_group = p_group)
                  OR EXISTS (SELECT 1 FROM queen.consumers c WHERE c.queue_id = q.id AND c.consumer_group = p_group))
           ORDER BY q.id FOR UPDATE OF q) x
$function$;

COMMENT ON FUNCTION queen_internal.lock_group_queues(p_queue_ids uuid[], p_group text) IS 'The queues among p_queue_ids where group p_group is registered or has cursor rows, locked FOR UPDATE in id order.';
