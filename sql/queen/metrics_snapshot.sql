CREATE OR REPLACE FUNCTION queen.metrics_snapshot(p_max_queues integer, p_now timestamp with time zone DEFAULT NULL::timestamp with time zone)
 RETURNS jsonb
 LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path TO 'pg_catalog', 'queen', 'queen_internal', 'pg_temp' AS $function$
DECLARE
  v_now timestamptz := coalesce(p_now, clock_timestamp());
  v_result jsonb;
BEGIN
  PERFORM queen_internal.check_at_least('maxQueues', p_max_queues, 0);
  WITH ranked AS (
    SELECT q.id, q.tenant, q.name, s.pending, s.processing, s.dead_letter, s.updated_at,
           queen_internal.lag_seconds(s.oldest_pending_at, v_now) AS lag_seconds,
           row_number() OVER (ORDER BY s.pending + s.dead_letter DESC, q.tenant, q.name) AS rank
      FROM queen.queue_stats s
      JOIN queen.queues q ON q.id = s.queue_id
  ), top_queues AS (
    SELECT * FROM ranked WHERE rank <= p_max_queues
  ), group_lags AS (
    SELECT t.tenant, t.name, c.consumer_group,
           sum(greatest(p.last_seq - c.cursor_seq, 0)) AS lag_messages,
           max(queen_internal.lag_seconds(CASE WHEN p.last_seq > c.cursor_seq
                                               THEN queen_internal.next_segment_at(c.partition_id, c.cursor_seq) END, v_now))
             AS lag_seconds
      FROM top_queues t
      JOIN queen.consumers c ON c.queue_id = t.id
      JOIN queen.partitions p ON p.id = c.partition_id
     GROUP BY t.tenant, t.name, c.consumer_group
  )
  SELECT jsonb_build_object(
           'queues', coalesce((SELECT jsonb_agg(jsonb_build_object(
                                  'tenant', t.tenant, 'queue', t.name, 'pending', t.pending,
                                  'leased', t.processing, 'deadLetters', t.dead_letter,
                                  'lagSeconds', t.lag_seconds) ORDER BY t.rank)
                                FROM top_queues t), '[]'::jsonb),
           'other', (SELECT jsonb_build_object(
                              'queues', count(*), 'pending', coalesce(sum(r.pending), 0),
                              'leased', coalesce(sum(r.processing), 0),
                              'deadLetters', coalesce(sum(r.dead_letter), 0),
                              'lagSeconds', coalesce(max(r.lag_seconds), 0))
                       FROM ranked r WHERE r.rank > p_max_queues),
           'groups', coalesce((SELECT jsonb_agg(jsonb_build_object(
                                  'tenant', g.tenant, 'queue', g.name, 'group', g.consumer_group,
                                  'lagMessages', g.lag_messages, 'lagSeconds', g.lag_seconds)
                                  ORDER BY g.tenant, g.name, g.consumer_group)
                                FROM group_lags g), '[]'::jsonb),
           'statsAgeSeconds', coalesce((SELECT queen_internal.lag_seconds(min(r.updated_at), v_now) FROM ranked r), 0))
    INTO v_result;
  RETURN v_result;
END;
$function$;

COMMENT ON FUNCTION queen.metrics_snapshot(p_max_queues integer, p_now timestamp with time zone) IS 'The queue figures of the /metrics exposition at p_now (null = clock_timestamp()): depth of the p_max_queues deepest queues from queue_stats (pending + dead letters, ties by tenant and name), the rest summed under "other", consumer lag per (queue, group) of those queues from the cursors, and the age of the stalest queue_stats row. 22023 on a negative p_max_queues.';
GRANT EXECUTE ON FUNCTION queen.metrics_snapshot(p_max_queues integer, p_now timestamp with time zone) TO queen_admin, queen_broker, queen_reader;
