-- Deploy queen:stats to pg
-- Per-queue statistics for dashboards and resource listings, recomputed by the
-- statistics reconciler (a single-runner job) in bounded batches. Counters come
-- from the sequence allocator (partitions.last_seq) and consumer cursors rather
-- than from counting messages, so a refresh costs per partition, not per message.

BEGIN;

CREATE TABLE queen.queue_stats (
  queue_id          uuid        PRIMARY KEY REFERENCES queen.queues (id) ON DELETE CASCADE,
  partitions        int         NOT NULL,
  consumer_groups   int         NOT NULL,  -- distinct groups with a cursor on the queue
  total             bigint      NOT NULL,  -- messages ever stored: sum of last_seq
  pending           bigint      NOT NULL,  -- not yet consumed by the slowest group of each partition
  processing        bigint      NOT NULL,  -- handed out under a live lease, not acked yet
  completed         bigint      NOT NULL,  -- consumed by every group of their partition: total - pending
  dead_letter       bigint      NOT NULL,  -- rows in queen.dlq
  newest_message_at timestamptz,
  updated_at        timestamptz NOT NULL DEFAULT clock_timestamp()
);
COMMENT ON TABLE queen.queue_stats IS
  'Per-queue counters refreshed by queen.reconcile_stats (the statistics reconciler job); may lag by up to STATS_RECONCILE_INTERVAL_MS. total counts messages ever stored (retention does not lower it); pending/completed follow the slowest consumer group of each partition (a partition without consumers counts everything as pending).';

-- The reconciler refreshes the stalest rows first.
CREATE INDEX queue_stats_updated_at_idx ON queen.queue_stats (updated_at);

-- The counters of one queue, computed now.
CREATE FUNCTION queen.compute_queue_stats(p_queue_id uuid, p_now timestamptz DEFAULT NULL)
RETURNS queen.queue_stats
LANGUAGE sql STABLE AS $$
  WITH per_partition AS (
    SELECT p.id, p.last_seq, p.last_message_at,
           coalesce(c.min_cursor, 0) AS min_cursor, coalesce(c.in_flight, 0) AS in_flight
      FROM queen.partitions p
      LEFT JOIN LATERAL (
        SELECT min(least(c.cursor_seq, p.last_seq)) AS min_cursor,
               sum(CASE WHEN c.lease_id IS NOT NULL AND c.lease_expires_at > coalesce(p_now, clock_timestamp())
                        THEN greatest(c.lease_count - c.lease_acked, 0) ELSE 0 END) AS in_flight
          FROM queen.consumers c
         WHERE c.partition_id = p.id
      ) c ON true
     WHERE p.queue_id = p_queue_id
  )
  SELECT p_queue_id,
         (SELECT count(*) FROM per_partition)::int,
         (SELECT count(DISTINCT c.consumer_group) FROM queen.consumers c
           WHERE c.partition_id IN (SELECT id FROM per_partition))::int,
         coalesce(sum(pp.last_seq), 0)::bigint,
         coalesce(sum(pp.last_seq - pp.min_cursor), 0)::bigint,
         coalesce(sum(pp.in_flight), 0)::bigint,
         coalesce(sum(pp.min_cursor), 0)::bigint,
         (SELECT count(*) FROM queen.dlq d WHERE d.partition_id IN (SELECT id FROM per_partition))::bigint,
         max(pp.last_message_at),
         coalesce(p_now, clock_timestamp())
    FROM per_partition pp
$$;
COMMENT ON FUNCTION queen.compute_queue_stats(uuid, timestamptz) IS
  'The queue_stats row of one queue computed from partitions, consumer cursors and leases (live at p_now, null = clock_timestamp()), and the DLQ (not stored).';

CREATE FUNCTION queen.reconcile_stats(p_limit int DEFAULT 100, p_max_age_ms bigint DEFAULT 0, p_now timestamptz DEFAULT NULL)
RETURNS int
LANGUAGE plpgsql AS $$
DECLARE
  v_refreshed int;
BEGIN
  PERFORM queen.check_at_least('reconcile_stats limit', p_limit, 1);
  PERFORM queen.check_at_least('reconcile_stats max age ms', p_max_age_ms, 0);
  -- Queues without stats first, then the stalest; rows refreshed less than
  -- p_max_age_ms ago are left alone, so repeated calls of one run move on.
  WITH stale AS (
    SELECT q.id
      FROM queen.queues q
      LEFT JOIN queen.queue_stats s ON s.queue_id = q.id
     WHERE s.queue_id IS NULL
        OR s.updated_at <= coalesce(p_now, clock_timestamp()) - p_max_age_ms * interval '1 millisecond'
     ORDER BY s.updated_at NULLS FIRST, q.id
     LIMIT p_limit
  )
  INSERT INTO queen.queue_stats AS s
  SELECT (queen.compute_queue_stats(stale.id, p_now)).* FROM stale
  ON CONFLICT (queue_id) DO UPDATE
     SET partitions = EXCLUDED.partitions, consumer_groups = EXCLUDED.consumer_groups, total = EXCLUDED.total,
         pending = EXCLUDED.pending, processing = EXCLUDED.processing, completed = EXCLUDED.completed,
         dead_letter = EXCLUDED.dead_letter, newest_message_at = EXCLUDED.newest_message_at,
         updated_at = EXCLUDED.updated_at;
  GET DIAGNOSTICS v_refreshed = ROW_COUNT;
  RETURN v_refreshed;
END;
$$;
COMMENT ON FUNCTION queen.reconcile_stats(int, bigint, timestamptz) IS
  'Refreshes queen.queue_stats for at most p_limit queues: those without a row first, then the stalest, skipping rows refreshed less than p_max_age_ms before p_now (null = clock_timestamp()). Returns how many were refreshed; call again while it returns p_limit. 22023 on limit < 1 or a negative age.';

COMMIT;
