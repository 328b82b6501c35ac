-- Revert queen:stats_views from pg (back to stats_views@v0.9.0: the pre-release functions, owned by the reverting user)

BEGIN;

SET LOCAL check_function_bodies = off;

DROP FUNCTION
  queen_internal.stats_bucket_minutes(timestamp with time zone,timestamp with time zone),
  queen_internal.stats_bucket(timestamp with time zone,integer),
  queen_internal.stats_time_range(jsonb,interval),
  queen_internal.stats_queues(text,jsonb),
  queen_internal.stats_series(uuid[],timestamp with time zone,timestamp with time zone,integer),
  queen_internal.stats_partitions(uuid,integer,integer),
  queen_internal.stats_counters(numeric,numeric,numeric,numeric,numeric),
  queen_internal.stats_age_seconds(timestamp with time zone);

CREATE OR REPLACE FUNCTION queen.stats_bucket_minutes(p_from timestamp with time zone, p_to timestamp with time zone)
 RETURNS integer
 LANGUAGE sql
 IMMUTABLE
AS $function$
  SELECT CASE
    WHEN p_to - p_from <= interval '1 hour' THEN 1
    WHEN p_to - p_from <= interval '6 hours' THEN 5
    WHEN p_to - p_from <= interval '1 day' THEN 15
    WHEN p_to - p_from <= interval '7 days' THEN 60
    WHEN p_to - p_from <= interval '31 days' THEN 360
    ELSE 1440 END
$function$;
COMMENT ON FUNCTION queen.stats_bucket_minutes(timestamp with time zone,timestamp with time zone) IS
  'Bucket width in minutes for a time-series window: 1 up to an hour, 5 up to 6 hours, 15 up to a day, 60 up to 7 days, 360 up to 31 days, 1440 beyond.';

CREATE OR REPLACE FUNCTION queen.stats_bucket(p_at timestamp with time zone, p_minutes integer)
 RETURNS timestamp with time zone
 LANGUAGE sql
 IMMUTABLE
AS $function$
  SELECT 'epoch'::timestamptz
         + floor(extract(epoch FROM p_at) / (p_minutes * 60)) * (p_minutes * 60) * interval '1 second'
$function$;
COMMENT ON FUNCTION queen.stats_bucket(timestamp with time zone,integer) IS
  'Start of the p_minutes-wide bucket (aligned on the epoch) containing p_at.';

CREATE OR REPLACE FUNCTION queen.stats_time_range(p_params jsonb, p_default_span interval, OUT from_at timestamp with time zone, OUT to_at timestamp with time zone, OUT bucket_minutes integer, OUT first_bucket timestamp with time zone, OUT time_range jsonb)
 RETURNS record
 LANGUAGE plpgsql
 STABLE
AS $function$
BEGIN
  to_at := coalesce('epoch'::timestamptz + (p_params->>'toMs')::bigint * interval '1 millisecond', clock_timestamp());
  from_at := coalesce('epoch'::timestamptz + (p_params->>'fromMs')::bigint * interval '1 millisecond',
                      to_at - p_default_span);
  IF from_at > to_at THEN
    RAISE EXCEPTION 'from must not be after to' USING ERRCODE = '22023';
  END IF;
  bucket_minutes := queen.stats_bucket_minutes(from_at, to_at);
  first_bucket := queen.stats_bucket(from_at, bucket_minutes);
  time_range := jsonb_build_object('from', queen.iso_millis(from_at), 'to', queen.iso_millis(to_at));
END;
$function$;
COMMENT ON FUNCTION queen.stats_time_range(jsonb,interval) IS
  'The time range of a time-series request: [from, to] (fromMs/toMs epoch ms; to defaults to now, from to p_default_span before to), bucket_minutes and first_bucket for that span, time_range = {from, to} as ISO text. 22023 when from is after to.';

CREATE OR REPLACE FUNCTION queen.stats_queues(p_tenant text, p_params jsonb)
 RETURNS SETOF queen.queues
 LANGUAGE sql
 STABLE
AS $function$
  SELECT q.* FROM queen.queues q
   WHERE q.tenant = queen.tenant_arg(p_tenant)
     AND (p_params->>'queue' IS NULL OR q.name = p_params->>'queue')
     AND (p_params->>'namespace' IS NULL OR q.namespace = p_params->>'namespace')
     AND (p_params->>'task' IS NULL OR q.task = p_params->>'task')
$function$;
COMMENT ON FUNCTION queen.stats_queues(text,jsonb) IS
  'Queues of tenant p_tenant matching the queue, namespace and task filters of p_params (absent = any).';

CREATE OR REPLACE FUNCTION queen.stats_series(p_queue_ids uuid[], p_from timestamp with time zone, p_to timestamp with time zone, p_minutes integer)
 RETURNS jsonb
 LANGUAGE sql
 STABLE
AS $function$
  WITH buckets AS (
    SELECT b FROM generate_series(queen.stats_bucket(p_from, p_minutes), queen.stats_bucket(p_to, p_minutes),
                                  p_minutes * interval '1 minute') b
  ), per_minute AS (
    -- Gauges summed over queues per minute, then averaged over the bucket's minutes.
    SELECT h.minute, sum(h.pushed) AS pushed, sum(h.popped) AS popped, sum(h.acked) AS acked,
           sum(h.dead_lettered) AS dead_lettered, sum(h.pending) AS pending, sum(h.processing) AS processing,
           sum(h.dead_letter) AS dead_letter, max(h.lag_seconds) AS lag_seconds
      FROM queen.queue_stats_minutes h
     WHERE h.queue_id = ANY (p_queue_ids) AND h.minute >= queen.stats_bucket(p_from, p_minutes) AND h.minute <= p_to
     GROUP BY h.minute
  ), per_bucket AS (
    SELECT queen.stats_bucket(m.minute, p_minutes) AS b, sum(m.pushed) AS pushed, sum(m.popped) AS popped,
           sum(m.acked) AS acked, sum(m.dead_lettered) AS dead_lettered, round(avg(m.pending)) AS pending,
           round(avg(m.processing)) AS processing, max(m.dead_letter) AS dead_letter,
           max(m.lag_seconds) AS lag_seconds
      FROM per_minute m GROUP BY 1
  )
  SELECT coalesce(jsonb_agg(jsonb_build_object(
           'timestamp', queen.iso_millis(b.b),
           'pushed', coalesce(p.pushed, 0), 'popped', coalesce(p.popped, 0), 'acked', coalesce(p.acked, 0),
           'failed', coalesce(p.dead_lettered, 0),
           'pushedPerSecond', round(coalesce(p.pushed, 0) / (p_minutes * 60.0), 3),
           'ackedPerSecond', round(coalesce(p.acked, 0) / (p_minutes * 60.0), 3),
           'pending', p.pending, 'processing', p.processing, 'deadLetter', p.dead_letter,
           'lagSeconds', round(p.lag_seconds::numeric, 3)) ORDER BY b.b), '[]'::jsonb)
    FROM buckets b LEFT JOIN per_bucket p ON p.b = b.b
$function$;
COMMENT ON FUNCTION queen.stats_series(uuid[],timestamp with time zone,timestamp with time zone,integer) IS
  'Time series of the given queues over [p_from, p_to] in p_minutes buckets: pushed, popped, acked, failed (dead-lettered) and their per-second rates summed, pending/processing averaged, deadLetter and lagSeconds (oldest pending message) at their maximum; null gauges where no refresh fell in the bucket.';

CREATE OR REPLACE FUNCTION queen.stats_partitions(p_queue_id uuid, p_limit integer, p_offset integer)
 RETURNS TABLE(id uuid, name text, created_at timestamp with time zone, total bigint, pending bigint, processing bigint, completed bigint, dead_letter bigint, consumed bigint, oldest_message_at timestamp with time zone, newest_message_at timestamp with time zone, oldest_pending_at timestamp with time zone)
 LANGUAGE sql
 STABLE
AS $function$
  SELECT p.id, p.name, p.created_at, p.last_seq,
         p.last_seq - coalesce(c.min_cursor, 0), coalesce(c.in_flight, 0), coalesce(c.min_cursor, 0),
         (SELECT count(*) FROM queen.dlq d WHERE d.partition_id = p.id),
         coalesce(c.consumed, 0),
         (SELECT m.created_at FROM queen.messages m WHERE m.partition_id = p.id ORDER BY m.seq LIMIT 1),
         p.last_message_at,
         (SELECT m.created_at FROM queen.messages m
           WHERE m.partition_id = p.id AND m.seq > coalesce(c.min_cursor, 0) ORDER BY m.seq LIMIT 1)
    FROM (SELECT * FROM queen.partitions p WHERE p.queue_id = p_queue_id
           ORDER BY p.name LIMIT p_limit OFFSET p_offset) p
    LEFT JOIN LATERAL (
      SELECT min(least(c.cursor_seq, p.last_seq)) AS min_cursor,
             sum(least(c.cursor_seq, p.last_seq)) AS consumed,
             sum(CASE WHEN c.lease_id IS NOT NULL AND c.lease_expires_at > clock_timestamp()
                      THEN greatest(c.lease_count - c.lease_acked, 0) ELSE 0 END) AS in_flight
        FROM queen.consumers c WHERE c.partition_id = p.id
    ) c ON true
   ORDER BY p.name
$function$;
COMMENT ON FUNCTION queen.stats_partitions(uuid,integer,integer) IS
  'Live counters of one page (p_limit partitions from p_offset, by name) of one queue''s partitions (same definitions as queen.queue_stats) with each one''s oldest stored, newest and oldest pending message times.';

CREATE OR REPLACE FUNCTION queen.stats_counters(p_total numeric, p_pending numeric, p_processing numeric, p_completed numeric, p_dead_letter numeric)
 RETURNS jsonb
 LANGUAGE sql
 IMMUTABLE
AS $function$
  SELECT jsonb_build_object('total', coalesce(p_total, 0)::bigint, 'pending', coalesce(p_pending, 0)::bigint,
                            'processing', coalesce(p_processing, 0)::bigint, 'completed', coalesce(p_completed, 0)::bigint,
                            'failed', coalesce(p_dead_letter, 0)::bigint, 'deadLetter', coalesce(p_dead_letter, 0)::bigint)
$function$;
COMMENT ON FUNCTION queen.stats_counters(numeric,numeric,numeric,numeric,numeric) IS
  'The counters object {total, pending, processing, completed, failed, deadLetter} (failed = dead-lettered).';

CREATE OR REPLACE FUNCTION queen.stats_age_seconds(p_oldest_update timestamp with time zone)
 RETURNS numeric
 LANGUAGE sql
 STABLE
AS $function$
  SELECT round(extract(epoch FROM clock_timestamp() - p_oldest_update)::numeric, 3)
$function$;
COMMENT ON FUNCTION queen.stats_age_seconds(timestamp with time zone) IS
  'Seconds elapsed since p_oldest_update (null stays null): the statsAge of the responses.';

COMMIT;
