CREATE OR REPLACE FUNCTION queen_internal.create_push_targets(p_items jsonb, p_tenant text, p_targets queen.push_target[])
 RETURNS queen.push_target[]
 LANGUAGE plpgsql AS $function$
DECLARE
  v_created_partitions uuid[];
  v_targets queen.push_target[];
BEGIN
  INSERT INTO queen.queues (tenant, name, namespace, task)
  SELECT p_tenant, n.name, coalesce(n.namespace, queen_internal.queue_namespace_of(n.name)), coalesce(n.task, queen_internal.queue_task_of(n.name))
    FROM (SELECT DISTINCT ON (x.e ->> 'queue') x.e ->> 'queue' AS name,
                 nullif(x.e ->> 'namespace', '') AS namespace, nullif(x.e ->> 'task', '') AS task
            FROM jsonb_array_elements(p_items) WITH ORDINALITY AS x(e, ord)
           WHERE x.e ->> 'queue' IN (SELECT t.queue_name FROM unnest(p_targets) t WHERE t.queue_id IS NULL)
           ORDER BY x.e ->> 'queue', x.ord) n
   ORDER BY n.name
  ON CONFLICT ON CONSTRAINT queues_tenant_name_key DO NOTHING;
  WITH created AS (
    INSERT INTO queen.partitions (queue_id, name)
    SELECT q.id, t.partition_name
      FROM unnest(p_targets) t
      CROSS JOIN LATERAL (SELECT q.id FROM queen.queues q WHERE q.tenant = p_tenant AND q.name = t.queue_name) q
     WHERE t.partition_id IS NULL
     ORDER BY 1, 2
    ON CONFLICT ON CONSTRAINT partitions_queue_name_key DO NOTHING
    RETURNING id
  )
  SELECT array_agg(created.id) INTO v_created_partitions FROM created;
  IF v_created_partitions IS NOT NULL THEN
    PERFORM queen_internal.add_partition_cursors(v_created_partitions);
  END IF;
  v_targets := queen_internal.lock_push_targets(p_items, p_tenant);
  IF EXISTS (SELECT 1 FROM unnest(v_targets) t WHERE t.partition_id IS NULL) THEN
    -- its queue was deleted between the two statements: the caller may retry
    RAISE EXCEPTION 'store_messages: a queue of this push was deleted while the push created it'
      USING ERRCODE = '40001';
  END IF;
  RETURN v_targets;
END;
$function$;

COMMENT ON FUNCTION queen_internal.create_push_targets(p_items jsonb, p_tenant text, p_targets queen.push_target[]) IS 'Internal to store_messages: creates the missing queues, partitions and cursor rows of push items of tenant p_tenant (name and key order), then returns lock_push_targets again; 40001 when a queue was deleted meanwhile.';
