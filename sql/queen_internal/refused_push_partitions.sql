CREATE OR REPLACE FUNCTION queen_internal.refused_push_partitions(p_items jsonb, p_targets queen.push_target[])
 RETURNS uuid[]
 LANGUAGE plpgsql STABLE AS $function$
BEGIN
  RETURN (SELECT array_agg(DISTINCT t.partition_id)
            FROM jsonb_array_elements(p_items) AS x(e)
            JOIN unnest(p_targets) t ON t.queue_name = x.e ->> 'queue' AND t.partition_name = queen_internal.push_item_partition(x.e)
           WHERE t.encryption_enabled
             AND coalesce((x.e ->> 'keyHeld')::bool, false) AND NOT coalesce((x.e ->> 'encrypted')::bool, false));
END;
$function$;

COMMENT ON FUNCTION queen_internal.refused_push_partitions(p_items jsonb, p_targets queen.push_target[]) IS 'Internal to store_messages: the partitions of encryptionEnabled queues that receive a plaintext item sent with keyHeld; every item of those partitions is refused.';
