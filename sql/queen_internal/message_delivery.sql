CREATE OR REPLACE FUNCTION queen_internal.message_delivery(p_partition_id uuid, p_message_id uuid, p_seq bigint, p_now timestamp with time zone)
 RETURNS TABLE(status text, queue_status text, consumed_by integer, total_groups integer, lease_expires_at timestamp with time zone, dead_letters integer)
 LANGUAGE sql STABLE AS $function$
  WITH g AS (
    SELECT c.consumer_group, queen_internal.message_group_state(c, p_seq, p_now) AS state,
           CASE WHEN queen_internal.message_group_state(c, p_seq, p_now) = 'processing' THEN c.lease_expires_at END AS lease_at
      FROM queen.consumers c WHERE c.partition_id = p_partition_id
  ), d AS (
    SELECT count(*)::int AS n, bool_or(x.consumer_group = queen_internal.queue_mode_group()) AS queue_mode
      FROM queen.dlq x WHERE x.message_id = p_message_id
  )
  SELECT CASE WHEN d.n > 0 THEN 'dead_letter'
              WHEN count(g.*) > 0 AND bool_and(g.state = 'completed') THEN 'completed'
              WHEN bool_or(g.state = 'processing') THEN 'processing'
              ELSE 'pending' END,
         CASE WHEN coalesce(d.queue_mode, false) THEN 'dead_letter'
              ELSE max(g.state) FILTER (WHERE g.consumer_group = queen_internal.queue_mode_group()) END,
         (count(*) FILTER (WHERE g.consumer_group <> queen_internal.queue_mode_group() AND g.state = 'completed'))::int,
         (count(*) FILTER (WHERE g.consumer_group <> queen_internal.queue_mode_group()))::int,
         max(g.lease_at),
         d.n
    FROM d LEFT JOIN g ON true
   GROUP BY d.n, d.queue_mode
$function$;

COMMENT ON FUNCTION queen_internal.message_delivery(p_partition_id uuid, p_message_id uuid, p_seq bigint, p_now timestamp with time zone) IS 'Delivery state of one message: status (dead_letter if any group dead-lettered it, completed once every cursor of the partition passed it, processing under a live lease, else pending), queue_status (the __QUEUE_MODE__ group''s, null without one), consumed_by/total_groups (named groups), the latest live lease expiry, the DLQ entry count.';
