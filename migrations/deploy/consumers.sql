-- Deploy queen:consumers to pg (release 1.0.0, a rework of consumers@v0.9.0)
-- Its functions at release 1.0.0: helpers in schema queen_internal, API procedures of schema queen
-- SECURITY DEFINER with a fixed search_path, every one owned by queen_owner (docs/procedures.md, Roles).
-- Written from the catalogue of the 1.0.0 schema (pg_get_functiondef); the pre-release text is in
-- consumers@v0.9.0.sql. A database of the pre-release schema upgrades in place: no row is touched.

BEGIN;

-- Bodies may name helpers that a later change of this release moves; each is checked when first called.
SET LOCAL check_function_bodies = off;

DROP FUNCTION
  queen.add_partition_cursors(uuid[]),
  queen.settle_drained(text,uuid[]);

SET LOCAL ROLE queen_owner;  -- the objects' owner; PUBLIC gets no EXECUTE (internal_schema)

CREATE OR REPLACE FUNCTION queen_internal.add_partition_cursors(p_partition_ids uuid[])
 RETURNS void
 LANGUAGE sql
AS $function$
  INSERT INTO queen.consumers (partition_id, consumer_group, queue_id)
  SELECT p.id, g.consumer_group, p.queue_id
    FROM queen.partitions p
    JOIN queen.consumer_groups g ON g.queue_id = p.queue_id
   WHERE p.id = ANY (p_partition_ids)
   ORDER BY p.id, g.consumer_group
  ON CONFLICT ON CONSTRAINT consumers_pkey DO NOTHING
$function$;
COMMENT ON FUNCTION queen_internal.add_partition_cursors(uuid[]) IS
  'Creates the cursor rows (cursor 0, pending) of the registered consumer groups (queen.consumer_groups) on newly created partitions.';

CREATE OR REPLACE FUNCTION queen_internal.settle_drained(p_group text, p_partition_ids uuid[])
 RETURNS integer
 LANGUAGE plpgsql
AS $function$
DECLARE
  v_locked uuid[];
  v_settled int;
BEGIN
  IF coalesce(cardinality(p_partition_ids), 0) = 0 THEN
    RETURN 0;
  END IF;
  SELECT array_agg(x.partition_id) INTO v_locked
    FROM (SELECT c.partition_id
            FROM queen.consumers c
            JOIN queen.partitions p ON p.id = c.partition_id
           WHERE c.partition_id = ANY (p_partition_ids) AND c.consumer_group = p_group AND c.pending
           ORDER BY c.partition_id
             FOR UPDATE OF c SKIP LOCKED
             FOR SHARE OF p SKIP LOCKED) x;
  IF v_locked IS NULL THEN
    RETURN 0;
  END IF;
  UPDATE queen.consumers c
     SET pending = false
   WHERE c.partition_id = ANY (v_locked) AND c.consumer_group = p_group
     AND NOT EXISTS (SELECT 1 FROM queen.messages m WHERE m.partition_id = c.partition_id AND m.seq > c.cursor_seq);
  GET DIAGNOSTICS v_settled = ROW_COUNT;
  RETURN v_settled;
END;
$function$;
COMMENT ON FUNCTION queen_internal.settle_drained(text,uuid[]) IS
  'Clears consumers.pending of group p_group on the given partitions where no message follows the cursor; skips (leaves pending) rows or partitions locked by others, so it never waits. Returns how many it cleared.';

RESET ROLE;

COMMENT ON COLUMN queen.consumers.pending IS 'Invariant: a row with a committed message after cursor_seq is pending. Rows are born pending, store_messages sets the rows of the partitions it writes pending (under the partition lock), and only queen_internal.settle_drained clears it. A pending row may have nothing to deliver (the next pop or ack settles it).';

COMMIT;
