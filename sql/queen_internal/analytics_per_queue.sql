CREATE OR REPLACE FUNCTION queen_internal.analytics_per_queue(p_tenant text, p_params jsonb, p_fields text[])
 RETURNS jsonb
 LANGUAGE plpgsql STABLE AS $function$
DECLARE
  w record;
BEGIN
  w := queen_internal.stats_time_range(p_params, interval '1 hour');
  RETURN (
    WITH q AS (SELECT id, name FROM queen_internal.stats_queues(p_tenant, p_params)),
    b AS (
      SELECT h.queue_id, queen_internal.stats_bucket(h.minute, w.bucket_minutes) AS bucket,
             sum(h.pushed) AS pushed, sum(h.popped) AS popped, sum(h.acked) AS acked,
             sum(h.dead_lettered) AS failed, round(avg(h.pending)) AS pending,
             round(avg(h.processing)) AS processing, max(h.lag_seconds) AS lag_seconds
        FROM queen.queue_stats_minutes h
       WHERE h.queue_id IN (SELECT id FROM q)
         AND h.minute >= w.first_bucket AND h.minute <= w.to_at
       GROUP BY 1, 2
    ), points AS (
      SELECT b.queue_id, b.bucket, jsonb_build_object(
               'timestamp', queen_internal.iso_millis(b.bucket), 'pushed', b.pushed, 'popped', b.popped, 'acked', b.acked,
               'failed', b.failed, 'pushedPerSecond', round(b.pushed / (w.bucket_minutes * 60.0), 3),
               'ackedPerSecond', round(b.acked / (w.bucket_minutes * 60.0), 3), 'pending', b.pending,
               'processing', b.processing, 'lagSeconds', round(b.lag_seconds::numeric, 3)) AS point
        FROM b
    ), per AS (
      SELECT p.queue_id,
             jsonb_agg((SELECT jsonb_object_agg(k, p.point->k) FROM unnest(p_fields || ARRAY['timestamp']) k)
                       ORDER BY p.bucket) AS series
        FROM points p GROUP BY p.queue_id
    )
    SELECT jsonb_build_object(
      'timeRange', w.time_range,
      'bucketMinutes', w.bucket_minutes,
      'queues', coalesce((SELECT jsonb_agg(jsonb_build_object('queue', q.name, 'series', per.series) ORDER BY q.name)
                            FROM per JOIN q ON q.id = per.queue_id), '[]'::jsonb))
  );
END;
$function$;

COMMENT ON FUNCTION queen_internal.analytics_per_queue(p_tenant text, p_params jsonb, p_fields text[]) IS 'Per queue of the tenant (queue, namespace, task filters) with history in the window (default the last hour): its bucketed points (buckets in which the reconciler refreshed it) reduced to the fields p_fields and timestamp.';
