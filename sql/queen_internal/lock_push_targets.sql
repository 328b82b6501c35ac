CREATE OR REPLACE FUNCTION queen_internal.lock_push_targets(p_items jsonb, p_tenant text)
 RETURNS queen.push_target[]
 LANGUAGE plpgsql AS $function$
BEGIN
  RETURN (SELECT array_agg(ROW(k.queue_name, k.partition_name, k.queue_id, k.partition_id, l.last_seq, k.max_size,
                       k.encryption_enabled, NULL, NULL)::queen.push_target ORDER BY k.partition_id NULLS LAST)
    FROM (SELECT n.queue_name, n.partition_name, q.id AS queue_id, q.max_size, q.encryption_enabled, pr.id AS partition_id
            FROM (SELECT DISTINCT x.e ->> 'queue' AS queue_name, queen_internal.push_item_partition(x.e) AS partition_name
                    FROM jsonb_array_elements(p_items) AS x(e)) n
            -- LIMIT 1 keeps each lookup a probe of its unique key per pair: flattened into
            -- joins, a plan made while the tables looked empty hashed every queue of the
            -- tenant and every partition of the database on each push.
            LEFT JOIN LATERAL (SELECT q.id, q.max_size, q.encryption_enabled FROM queen.queues q
                                WHERE q.tenant = p_tenant AND q.name = n.queue_name LIMIT 1) q ON true
            LEFT JOIN LATERAL (SELECT p.id FROM queen.partitions p
                                WHERE p.queue_id = q.id AND p.name = n.partition_name LIMIT 1) pr ON true
           ORDER BY pr.id) k
    -- the lock, taken in the order above; last_seq is read from the locked row version
    LEFT JOIN LATERAL (SELECT p.last_seq FROM queen.partitions p WHERE p.id = k.partition_id FOR UPDATE) l ON true);
END;
$function$;

COMMENT ON FUNCTION queen_internal.lock_push_targets(p_items jsonb, p_tenant text) IS 'Internal to store_messages: the distinct (queue, partition) pairs of push items in tenant p_tenant, their partition rows locked FOR UPDATE in ascending id, with last_seq read under the lock; partition_id null for a pair not created yet.';
