CREATE OR REPLACE FUNCTION queen.expire_messages(p_batch integer, p_now timestamp with time zone DEFAULT NULL::timestamp with time zone)
 RETURNS integer
 LANGUAGE plpgsql SECURITY DEFINER SET search_path TO 'pg_catalog', 'queen', 'queen_internal', 'pg_temp' SET jit TO 'off' AS $function$
DECLARE
  v_now timestamptz := coalesce(p_now, now());
  v_budget int := p_batch;
  v_consumer record;
  v_last_seq bigint;
  v_count int;
BEGIN
  PERFORM queen_internal.check_at_least('batch', p_batch, 1);

  -- Messages nobody has a cursor for expire for the queue-mode group: give such
  -- partitions a queue-mode cursor row (at the beginning) so the loop below sees them.
  -- MATERIALIZED: the creation-time filter must run before the cursor-row check, which otherwise
  -- hash-joins every partition with every cursor row.
  WITH aged AS MATERIALIZED (
    SELECT p.id, p.queue_id, r.cutoff
      FROM queen_internal.expiry_cutoffs(v_now) r
      JOIN queen.partitions p ON p.queue_id = r.queue_id
     -- A partition exists before its first message, so one created since the cutoff has nothing old enough.
     WHERE p.last_seq > 0 AND p.created_at < r.cutoff
  )
  INSERT INTO queen.consumers (partition_id, consumer_group, queue_id, cursor_seq)
  SELECT a.id, queen_internal.queue_mode_group(), a.queue_id, 0
    FROM aged a
   WHERE NOT EXISTS (SELECT 1 FROM queen.consumers c WHERE c.partition_id = a.id)
     AND queen_internal.next_segment_at(a.id, 0) < a.cutoff
   ORDER BY a.id
  ON CONFLICT ON CONSTRAINT consumers_pkey DO NOTHING;

  -- Every (partition, group) without a live lease whose next message is too old:
  -- dead-letter the expired prefix after its cursor and move the cursor past it.
  -- Rows busy in a pop or ack are skipped (next cycle), leased batches are left to
  -- their consumer.
  FOR v_consumer IN
    SELECT c.partition_id, c.consumer_group, c.cursor_seq, r.reason, r.cutoff
      FROM queen_internal.expiry_cutoffs(v_now) r
      -- Only pending rows can have a message after their cursor (consumers.pending's invariant), and the
      -- pop work-list index finds a queue's rows without reading its partitions.
      JOIN queen.consumers c ON c.queue_id = r.queue_id AND c.pending
      JOIN queen.partitions p ON p.id = c.partition_id
     WHERE p.last_seq > c.cursor_seq
       AND (c.lease_id IS NULL OR c.lease_expires_at <= v_now)
       AND queen_internal.next_segment_at(c.partition_id, c.cursor_seq) < r.cutoff
     ORDER BY c.partition_id, c.consumer_group
       FOR UPDATE OF c SKIP LOCKED
  LOOP
    EXIT WHEN v_budget <= 0;
    WITH old_enough AS (
      -- created_at grows with seq, so the expired messages are a prefix
      SELECT m.seq FROM queen_internal.segment_messages(v_consumer.partition_id, v_consumer.cursor_seq, v_budget) m
       WHERE m.created_at < v_consumer.cutoff
    ), dead AS (
      SELECT o.seq, queen_internal.dead_letter(v_consumer.partition_id, o.seq, v_consumer.consumer_group, v_consumer.reason, 0)
        FROM old_enough o
    )
    SELECT max(d.seq), count(*) INTO v_last_seq, v_count FROM dead d;
    IF v_count > 0 THEN
      UPDATE queen.consumers c
         SET cursor_seq = greatest(c.cursor_seq, v_last_seq), lease_id = NULL, lease_expires_at = NULL
       WHERE c.partition_id = v_consumer.partition_id AND c.consumer_group = v_consumer.consumer_group;
      v_budget := v_budget - v_count;
    END IF;
  END LOOP;
  RETURN p_batch - v_budget;
END;
$function$;

COMMENT ON FUNCTION queen.expire_messages(p_batch integer, p_now timestamp with time zone) IS 'Eviction sweep: for queues with ttl or maxWaitTimeSeconds, dead-letters (per consumer group; queue mode when no group has a cursor) up to p_batch unconsumed messages older than the smaller limit, with a reason naming the option, and moves those cursors past them. Leased batches and rows busy elsewhere are skipped. Ages are measured at p_now (null = now()). Returns the number of DLQ entries written.';
GRANT EXECUTE ON FUNCTION queen.expire_messages(p_batch integer, p_now timestamp with time zone) TO queen_admin, queen_broker;
