CREATE OR REPLACE FUNCTION queen_internal.stats_series(p_queue_ids uuid[], p_from timestamp with time zone, p_to timestamp with time zone, p_minutes integer)
 RETURNS jsonb
 LANGUAGE sql STABLE AS $function$
  WITH buckets AS (
    SELECT b FROM generate_series(queen_internal.stats_bucket(p_from, p_minutes), queen_internal.stats_bucket(p_to, p_minutes),
                                  p_minutes * interval '1 minute') b
  ), per_minute AS (
    -- Gauges summed over queues per minute, then averaged over the bucket's minutes.
    SELECT h.minute, sum(h.pushed) AS pushed, sum(h.popped) AS popped, sum(h.acked) AS acked,
           sum(h.dead_lettered) AS dead_lettered, sum(h.pending) AS pending, sum(h.processing) AS processing,
           sum(h.dead_letter) AS dead_letter, max(h.lag_seconds) AS lag_seconds
      FROM queen.queue_stats_minutes h
     WHERE h.queue_id = ANY (p_queue_ids) AND h.minute >= queen_internal.stats_bucket(p_from, p_minutes) AND h.minute <= p_to
     GROUP BY h.minute
  ), per_bucket AS (
    SELECT queen_internal.stats_bucket(m.minute, p_minutes) AS b, sum(m.pushed) AS pushed, sum(m.popped) AS popped,
           sum(m.acked) AS acked, sum(m.dead_lettered) AS dead_lettered, round(avg(m.pending)) AS pending,
           round(avg(m.processing)) AS processing, max(m.dead_letter) AS dead_letter,
           max(m.lag_seconds) AS lag_seconds
      FROM per_minute m GROUP BY 1
  )
  SELECT coalesce(jsonb_agg(jsonb_build_object(
           'timestamp', queen_internal.iso_millis(b.b),
           'pushed', coalesce(p.pushed, 0), 'popped', coalesce(p.popped, 0), 'acked', coalesce(p.acked, 0),
           'failed', coalesce(p.dead_lettered, 0),
           'pushedPerSecond', round(coalesce(p.pushed, 0) / (p_minutes * 60.0), 3),
           'ackedPerSecond', round(coalesce(p.acked, 0) / (p_minutes * 60.0), 3),
           'pending', p.pending, 'processing', p.processing, 'deadLetter', p.dead_letter,
           'lagSeconds', round(p.lag_seconds::numeric, 3)) ORDER BY b.b), '[]'::jsonb)
    FROM buckets b LEFT JOIN per_bucket p ON p.b = b.b
$function$;

COMMENT ON FUNCTION queen_internal.stats_series(p_queue_ids uuid[], p_from timestamp with time zone, p_to timestamp with time zone, p_minutes integer) IS 'Time series of the given queues over [p_from, p_to] in p_minutes buckets: pushed, popped, acked, failed (dead-lettered) and their per-second rates summed, pending/processing averaged, deadLetter and lagSeconds (oldest pending message) at their maximum; null gauges where no refresh fell in the bucket.';
