-- Why messages fail: the dead letters of a window grouped by queue, consumer group and error, most frequent
-- first. An error is grouped by its first 200 characters, so texts that differ only in a long tail (an id, a
-- stack) fall together; each group keeps one full sample.
CREATE OR REPLACE FUNCTION queen.analytics_dead_letter_errors(p_tenant text, p_params jsonb DEFAULT '{}'::jsonb)
 RETURNS jsonb
 LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path TO 'pg_catalog', 'queen', 'queen_internal', 'pg_temp' AS $function$
DECLARE
  w record;
  v_limit int := coalesce((p_params->>'limit')::int, 50);
  v_offset int := coalesce((p_params->>'offset')::int, 0);
BEGIN
  w := queen_internal.stats_time_range(p_params, interval '1 hour');
  RETURN (
    WITH failed AS (
      SELECT q.name AS queue_name, d.consumer_group, left(d.error_message, 200) AS error_key,
             d.error_message, d.failed_at
        FROM queen_internal.stats_queues(p_tenant, p_params) q
        JOIN queen.partitions p ON p.queue_id = q.id
        JOIN queen.dlq d ON d.partition_id = p.id AND d.failed_at >= w.from_at AND d.failed_at <= w.to_at
    ), grouped AS (
      SELECT f.queue_name, f.consumer_group, f.error_key, count(*) AS n,
             min(f.failed_at) AS first_failed_at, max(f.failed_at) AS last_failed_at,
             (array_agg(f.error_message ORDER BY f.failed_at DESC))[1] AS sample
        FROM failed f GROUP BY 1, 2, 3
    ), page AS (
      SELECT g.* FROM grouped g
       ORDER BY g.n DESC, g.last_failed_at DESC, g.queue_name, g.consumer_group, g.error_key
       LIMIT v_limit OFFSET v_offset
    )
    SELECT jsonb_build_object(
      'timeRange', w.time_range,
      'errors', coalesce((SELECT jsonb_agg(jsonb_build_object(
          'queue', p.queue_name,
          'consumerGroup', CASE WHEN p.consumer_group = queen_internal.queue_mode_group() THEN NULL
                                ELSE p.consumer_group END,
          'error', p.sample, 'count', p.n,
          'firstFailedAt', queen_internal.iso_millis(p.first_failed_at),
          'lastFailedAt', queen_internal.iso_millis(p.last_failed_at))
          ORDER BY p.n DESC, p.last_failed_at DESC, p.queue_name, p.consumer_group, p.error_key) FROM page p),
        '[]'::jsonb),
      'deadLetters', (SELECT count(*) FROM failed),
      'total', (SELECT count(*) FROM grouped),
      'pagination', jsonb_build_object('limit', v_limit, 'offset', v_offset))
  );
END;
$function$;

COMMENT ON FUNCTION queen.analytics_dead_letter_errors(p_tenant text, p_params jsonb) IS 'GET /api/v1/analytics/dead-letter-errors (from/to default the last hour; queue filter; limit default 50, offset): the tenant''s dead letters that failed in the window, grouped by queue, consumer group (null = queue mode) and the first 200 characters of the error, most frequent first, each with its newest full error text, count and first and last failure; deadLetters = dead letters in the window, total = groups.';
GRANT EXECUTE ON FUNCTION queen.analytics_dead_letter_errors(p_tenant text, p_params jsonb) TO queen_admin, queen_broker, queen_reader;
