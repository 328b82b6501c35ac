-- The group of an ack that names none, found by its lease: one probe per ack item until one is found, whatever
-- the statistics a plan was made with. `lease_id = ...` is the only index condition: the partition is compared
-- with IS NOT DISTINCT FROM, which no index answers (partition_id is never null, so it matches what = matched),
-- and the tenant through the cursor row's queue_id in a scalar subquery, which the planner cannot move out of the
-- probe.
-- 1.0.0 joined the probe to queen.partitions and queen.queues; a generic plan made while the tables were tiny
-- and freshly analyzed put that join outside, scanning every partition of the database and probing every item
-- for each, or probed by partition_id alone through pop's work-list index (whose last column it is): acks
-- without a group then cost 5-10 ms each in half of the runs (docs/performance.md, "The pop+ack collapse of
-- 1.1.0's first builds").
CREATE OR REPLACE FUNCTION queen_internal.ack_lease_group(p_acks jsonb, p_tenant text)
 RETURNS text
 LANGUAGE plpgsql STABLE AS $function$
BEGIN
  RETURN (SELECT c.consumer_group
            FROM jsonb_array_elements(p_acks) AS e(item)
            CROSS JOIN LATERAL (SELECT cc.consumer_group FROM queen.consumers cc
                                 WHERE cc.lease_id = queen_internal.uuid_or_null(e.item ->> 'leaseId')
                                   AND cc.partition_id IS NOT DISTINCT FROM queen_internal.uuid_or_null(e.item ->> 'partitionId')
                                   AND (SELECT q.tenant FROM queen.queues q WHERE q.id = cc.queue_id) = p_tenant
                                 LIMIT 1) c
           LIMIT 1);
END;
$function$;

COMMENT ON FUNCTION queen_internal.ack_lease_group(p_acks jsonb, p_tenant text) IS 'Consumer group holding one of the (partitionId, leaseId) pairs of an ack array in tenant p_tenant, or null.';
