CREATE OR REPLACE FUNCTION queen_internal.add_partition_cursors(p_partition_ids uuid[])
 RETURNS void
 LANGUAGE sql AS $function$
  INSERT INTO queen.consumers (partition_id, consumer_group, queue_id)
  SELECT p.id, g.consumer_group, p.queue_id
    FROM queen.partitions p
    JOIN queen.consumer_groups g ON g.queue_id = p.queue_id
   WHERE p.id = ANY (p_partition_ids)
   ORDER BY p.id, g.consumer_group
  ON CONFLICT ON CONSTRAINT consumers_pkey DO NOTHING
$function$;

COMMENT ON FUNCTION queen_internal.add_partition_cursors(p_partition_ids uuid[]) IS 'Creates the cursor rows (cursor 0, pending) of the registered consumer groups (queen.consumer_groups) on newly created partitions.';
