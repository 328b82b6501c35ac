-- Deploy queen:delete_queue to pg (release 1.0.0, a rework of delete_queue@v0.9.0)
-- Its functions at release 1.0.0: helpers in schema queen_internal, API procedures of schema queen
-- SECURITY DEFINER with a fixed search_path, every one owned by queen_owner (docs/procedures.md, Roles).
-- Written from the catalogue of the 1.0.0 schema (pg_get_functiondef); the pre-release text is in
-- delete_queue@v0.9.0.sql. A database of the pre-release schema upgrades in place: no row is touched.

BEGIN;

-- Bodies may name helpers that a later change of this release moves; each is checked when first called.
SET LOCAL check_function_bodies = off;

DROP FUNCTION
  queen.delete_queue(text,text);

SET LOCAL ROLE queen_owner;  -- the objects' owner; PUBLIC gets no EXECUTE (internal_schema)

CREATE OR REPLACE FUNCTION queen.delete_queue(p_queue text, p_tenant text)
 RETURNS boolean
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO 'pg_catalog', 'queen', 'queen_internal', 'pg_temp'
AS $function$
DECLARE
  v_queue_id uuid;
  v_partition_ids uuid[];
BEGIN
  IF p_queue IS NULL OR p_queue = '' THEN
    RAISE EXCEPTION 'queue is required' USING ERRCODE = '22023';
  END IF;
  SELECT q.id INTO v_queue_id FROM queen.queues q
   WHERE q.tenant = queen_internal.tenant_arg(p_tenant) AND q.name = p_queue FOR UPDATE;
  IF v_queue_id IS NULL THEN
    RETURN false;
  END IF;
  -- take the partitions from under concurrent pushes (same lock order as push)
  SELECT array_agg(x.id) INTO v_partition_ids
    FROM (SELECT p.id FROM queen.partitions p WHERE p.queue_id = v_queue_id ORDER BY p.id FOR UPDATE) x;
  -- messages and tombstones have no foreign key (hot path): delete them explicitly
  DELETE FROM queen.messages m WHERE m.partition_id = ANY (v_partition_ids);
  DELETE FROM queen.dedup_tombstones t WHERE t.partition_id = ANY (v_partition_ids);
  -- partitions, cursors/leases, dead letters and subscription records cascade
  DELETE FROM queen.queues q WHERE q.id = v_queue_id;
  RETURN true;
END;
$function$;
COMMENT ON FUNCTION queen.delete_queue(text,text) IS
  'Deletes queue p_queue of tenant p_tenant ('''' = default) with its partitions, messages, dedup tombstones, cursors/leases, dead letters and subscription records. Returns false when the queue does not exist. 22023 on a missing name.';

RESET ROLE;

COMMIT;
