-- Deploy queen:expire_messages to pg
BEGIN;

-- The age past which a queue's unconsumed messages expire, and the DLQ reason:
-- the smaller of ttl and maxWaitTimeSeconds that is set (0 = off).
CREATE FUNCTION queen.expiry_rule(q queen.queues, OUT max_age_seconds int, OUT reason text)
LANGUAGE sql IMMUTABLE AS $$
  SELECT CASE WHEN q.ttl > 0 AND (q.max_wait_time_seconds = 0 OR q.ttl <= q.max_wait_time_seconds) THEN q.ttl
              ELSE nullif(q.max_wait_time_seconds, 0) END,
         CASE WHEN q.ttl > 0 AND (q.max_wait_time_seconds = 0 OR q.ttl <= q.max_wait_time_seconds)
              THEN format('Message expired: ttl of %s s exceeded', q.ttl)
              WHEN q.max_wait_time_seconds > 0
              THEN format('Message expired: maxWaitTimeSeconds of %s s exceeded', q.max_wait_time_seconds) END
$$;
COMMENT ON FUNCTION queen.expiry_rule(queen.queues) IS
  'Expiry age of a queue (least of ttl and maxWaitTimeSeconds that is > 0; null = never) and the DLQ reason naming the option.';

CREATE FUNCTION queen.expire_messages(p_batch int, p_now timestamptz DEFAULT NULL) RETURNS int
LANGUAGE plpgsql AS $$
DECLARE
  v_now timestamptz := coalesce(p_now, now());
  v_budget int := p_batch;
  v_consumer record;
  v_last_seq bigint;
  v_count int;
BEGIN
  PERFORM queen.check_at_least('batch', p_batch, 1);

  -- Messages nobody has a cursor for expire for the queue-mode group: give such
  -- partitions a queue-mode cursor row (at the beginning) so the loop below sees them.
  INSERT INTO queen.consumers (partition_id, consumer_group, queue_id, cursor_seq)
  SELECT p.id, '__QUEUE_MODE__', p.queue_id, 0
    FROM queen.queues q
    CROSS JOIN LATERAL queen.expiry_rule(q) rule
    JOIN queen.partitions p ON p.queue_id = q.id
   WHERE rule.max_age_seconds IS NOT NULL
     AND p.last_seq > 0
     AND NOT EXISTS (SELECT 1 FROM queen.consumers c WHERE c.partition_id = p.id)
     AND (SELECT m.created_at FROM queen.messages m WHERE m.partition_id = p.id ORDER BY m.seq LIMIT 1)
         < v_now - rule.max_age_seconds * interval '1 second'
   ORDER BY p.id
  ON CONFLICT ON CONSTRAINT consumers_pkey DO NOTHING;

  -- Every (partition, group) without a live lease whose next message is too old:
  -- dead-letter the expired prefix after its cursor and move the cursor past it.
  -- Rows busy in a pop or ack are skipped (next cycle), leased batches are left to
  -- their consumer.
  FOR v_consumer IN
    SELECT c.partition_id, c.consumer_group, c.cursor_seq, rule.reason,
           v_now - rule.max_age_seconds * interval '1 second' AS cutoff
      FROM queen.queues q
      CROSS JOIN LATERAL queen.expiry_rule(q) rule
      JOIN queen.partitions p ON p.queue_id = q.id
      JOIN queen.consumers c ON c.partition_id = p.id
     WHERE rule.max_age_seconds IS NOT NULL
       AND p.last_seq > c.cursor_seq
       AND (c.lease_id IS NULL OR c.lease_expires_at <= v_now)
       AND (SELECT m.created_at FROM queen.messages m
             WHERE m.partition_id = c.partition_id AND m.seq > c.cursor_seq ORDER BY m.seq LIMIT 1)
           < v_now - rule.max_age_seconds * interval '1 second'
     ORDER BY c.partition_id, c.consumer_group
       FOR UPDATE OF c SKIP LOCKED
  LOOP
    EXIT WHEN v_budget <= 0;
    WITH expired AS (
      SELECT m.seq FROM queen.messages m
       WHERE m.partition_id = v_consumer.partition_id AND m.seq > v_consumer.cursor_seq
       ORDER BY m.seq
       LIMIT v_budget
    ), old_enough AS (
      -- created_at grows with seq, so the expired messages are a prefix
      SELECT e.seq FROM expired e JOIN queen.messages m ON m.partition_id = v_consumer.partition_id AND m.seq = e.seq
       WHERE m.created_at < v_consumer.cutoff
    ), dead AS (
      SELECT o.seq, queen.dead_letter(v_consumer.partition_id, o.seq, v_consumer.consumer_group, v_consumer.reason, 0)
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
$$;
COMMENT ON FUNCTION queen.expire_messages(int, timestamptz) IS
  'Eviction sweep: for queues with ttl or maxWaitTimeSeconds, dead-letters (per consumer group; queue mode when no group has a cursor) up to p_batch unconsumed messages older than the smaller limit, with a reason naming the option, and moves those cursors past them. Leased batches and rows busy elsewhere are skipped. Ages are measured at p_now (null = now()). Returns the number of DLQ entries written.';

COMMIT;
