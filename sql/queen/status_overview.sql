CREATE OR REPLACE FUNCTION queen.status_overview(p_tenant text, p_params jsonb DEFAULT '{}'::jsonb)
 RETURNS jsonb
 LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path TO 'pg_catalog', 'queen', 'queen_internal', 'pg_temp' AS $function$
DECLARE
  w record;
  v_ids uuid[];
  v_series jsonb;
BEGIN
  w := queen_internal.stats_time_range(p_params, interval '1 hour');
  SELECT coalesce(array_agg(q.id), '{}') INTO v_ids FROM queen_internal.stats_queues(p_tenant, p_params) q;
  v_series := queen_internal.stats_series(v_ids, w.from_at, w.to_at, w.bucket_minutes);
  RETURN (
    WITH s AS (SELECT s.*, q.name, q.namespace, q.task FROM queen.queue_stats s
                 JOIN queen.queues q ON q.id = s.queue_id WHERE s.queue_id = ANY (v_ids)),
    moved AS (SELECT h.queue_id, sum(h.pushed) AS pushed, sum(h.popped) AS popped, sum(h.acked) AS acked,
                     sum(h.dead_lettered) AS failed
                FROM queen.queue_stats_minutes h
               WHERE h.queue_id = ANY (v_ids) AND h.minute >= date_trunc('minute', w.from_at) AND h.minute <= w.to_at
               GROUP BY h.queue_id),
    brokers AS (SELECT coalesce(sum(b.requests), 0) AS requests, coalesce(sum(b.push_requests), 0) AS push_requests,
                       coalesce(sum(b.push_messages), 0) AS push_messages, coalesce(sum(b.db_errors), 0) AS db_errors,
                       coalesce(sum(b.ack_failed), 0) AS ack_failed
                  FROM queen.broker_stats_minutes b
                 WHERE b.minute >= date_trunc('minute', w.from_at) AND b.minute <= w.to_at),
    leases AS (SELECT count(*) AS partitions_with_leases, coalesce(sum(c.lease_count), 0) AS batch,
                      coalesce(sum(c.lease_acked), 0) AS acked,
                      coalesce(sum(greatest(c.lease_count - c.lease_acked, 0)), 0) AS active
                 FROM queen.consumers c
                WHERE c.lease_id IS NOT NULL AND c.lease_expires_at > clock_timestamp() AND c.queue_id = ANY (v_ids))
    SELECT jsonb_build_object(
      'timeRange', w.time_range,
      'bucketMinutes', w.bucket_minutes,
      'pointCount', jsonb_array_length(v_series),
      'throughput', v_series,
      'queues', coalesce((SELECT jsonb_agg(jsonb_build_object(
          'id', s.queue_id, 'name', s.name, 'namespace', nullif(s.namespace, ''), 'task', nullif(s.task, ''),
          'partitions', s.partitions,
          'messages', queen_internal.stats_counters(s.total, s.pending, s.processing, s.completed, s.dead_letter),
          'pushed', coalesce(m.pushed, 0), 'popped', coalesce(m.popped, 0), 'acked', coalesce(m.acked, 0),
          'failed', coalesce(m.failed, 0)) ORDER BY s.name)
          FROM s LEFT JOIN moved m ON m.queue_id = s.queue_id), '[]'::jsonb),
      'messages', (SELECT queen_internal.stats_counters(sum(total)::bigint, sum(pending)::bigint, sum(processing)::bigint,
                                               sum(completed)::bigint, sum(dead_letter)::bigint) FROM s)
                  || (SELECT jsonb_build_object(
                        'requests', requests,
                        'batchEfficiency', CASE WHEN push_requests > 0 THEN round(push_messages::numeric / push_requests, 3)
                                                ELSE 0 END) FROM brokers),
      'leases', (SELECT jsonb_build_object('active', active, 'partitionsWithLeases', partitions_with_leases,
                                           'totalBatchSize', batch, 'totalAcked', acked) FROM leases),
      'deadLetterQueue', jsonb_build_object(
          'total', (SELECT coalesce(sum(dead_letter), 0) FROM s),
          'addedInRange', (SELECT coalesce(sum(failed), 0) FROM moved)),
      'workers', queen_internal.stats_workers(w.from_at, w.to_at),
      'errors', (SELECT jsonb_build_object('dbErrors', db_errors, 'ackFailed', ack_failed,
                                           'total', db_errors + ack_failed) FROM brokers),
      'statsAge', (SELECT queen_internal.stats_age_seconds(min(updated_at)) FROM s))
  );
END;
$function$;

COMMENT ON FUNCTION queen.status_overview(p_tenant text, p_params jsonb) IS 'GET /api/v1/status (from/to default the last hour; queue, namespace, task filters): timeRange, bucketMinutes, pointCount, throughput[] (stats_series), queues[] with counters and window totals, messages (counters, requests, batchEfficiency = pushed messages per push request), leases (live), deadLetterQueue, workers[] (brokers), errors (broker database errors and failed acks in the window), statsAge.';
GRANT EXECUTE ON FUNCTION queen.status_overview(p_tenant text, p_params jsonb) TO queen_admin, queen_broker, queen_reader;
