CREATE OR REPLACE FUNCTION queen_internal.partitions_mode(p_partition_ids uuid[])
 RETURNS jsonb
 LANGUAGE sql STABLE AS $function$
  SELECT jsonb_build_object('hasQueueMode', coalesce(bool_or(x.g = queen_internal.queue_mode_group()), false),
                            'busGroupsCount', count(*) FILTER (WHERE x.g <> queen_internal.queue_mode_group()),
                            'type', CASE WHEN bool_or(x.g = queen_internal.queue_mode_group()) AND bool_or(x.g <> queen_internal.queue_mode_group()) THEN 'hybrid'
                                         WHEN bool_or(x.g = queen_internal.queue_mode_group()) THEN 'queue'
                                         WHEN count(*) > 0 THEN 'bus' ELSE 'none' END)
    FROM (SELECT DISTINCT c.consumer_group::text AS g FROM queen.consumers c WHERE c.partition_id = ANY (p_partition_ids)) x
$function$;

COMMENT ON FUNCTION queen_internal.partitions_mode(p_partition_ids uuid[]) IS '{"hasQueueMode", "busGroupsCount", "type": queue|bus|hybrid|none} of the consumer groups with a cursor on the partitions.';
