-- Deploy queen:stats_resources to pg (release 1.0.0, a rework of stats_resources@v0.9.0)
-- Its functions at release 1.0.0: helpers in schema queen_internal, API procedures of schema queen
-- SECURITY DEFINER with a fixed search_path, every one owned by queen_owner (docs/procedures.md, Roles).
-- Written from the catalogue of the 1.0.0 schema (pg_get_functiondef); the pre-release text is in
-- stats_resources@v0.9.0.sql. A database of the pre-release schema upgrades in place: no row is touched.

BEGIN;

-- Bodies may name helpers that a later change of this release moves; each is checked when first called.
SET LOCAL check_function_bodies = off;

DROP FUNCTION
  queen.resources_overview(text,jsonb),
  queen.resources_queues(text,jsonb),
  queen.resources_queue(text,jsonb),
  queen.resources_groups(text,text),
  queen.resources_namespaces(text,jsonb),
  queen.resources_tasks(text,jsonb);

SET LOCAL ROLE queen_owner;  -- the objects' owner; PUBLIC gets no EXECUTE (internal_schema)

CREATE OR REPLACE FUNCTION queen.resources_overview(p_tenant text, p_params jsonb DEFAULT '{}'::jsonb)
 RETURNS jsonb
 LANGUAGE sql
 STABLE SECURITY DEFINER
 SET search_path TO 'pg_catalog', 'queen', 'queen_internal', 'pg_temp'
AS $function$
  WITH q AS (SELECT * FROM queen_internal.stats_queues(p_tenant, '{}')),
  s AS (SELECT s.*, extract(epoch FROM clock_timestamp() - s.oldest_pending_at) AS lag_s
          FROM queen.queue_stats s JOIN q ON q.id = s.queue_id),
  recent AS (
    SELECT coalesce(sum(h.pushed), 0) AS pushed, coalesce(sum(h.acked), 0) AS acked
      FROM queen.queue_stats_minutes h JOIN q ON q.id = h.queue_id
     WHERE h.minute >= date_trunc('minute', clock_timestamp()) - interval '5 minutes'
  )
  SELECT jsonb_build_object(
    'queues', (SELECT count(*) FROM q),
    'partitions', (SELECT coalesce(sum(partitions), 0) FROM s),
    'namespaces', (SELECT count(DISTINCT namespace) FROM q WHERE namespace <> ''),
    'tasks', (SELECT count(DISTINCT task) FROM q WHERE task <> ''),
    'messages', (SELECT queen_internal.stats_counters(sum(total), sum(pending), sum(processing), sum(completed),
                                             sum(dead_letter))::jsonb FROM s),
    'lag', jsonb_build_object(
      'time', (SELECT jsonb_build_object(
                 'avg', round(coalesce(avg(coalesce(lag_s, 0)), 0)::numeric, 3),
                 'median', round(coalesce(percentile_cont(0.5) WITHIN GROUP (ORDER BY coalesce(lag_s, 0)), 0)::numeric, 3),
                 'min', round(coalesce(min(coalesce(lag_s, 0)), 0)::numeric, 3),
                 'max', round(coalesce(max(coalesce(lag_s, 0)), 0)::numeric, 3)) FROM s),
      'offset', (SELECT jsonb_build_object(
                   'avg', round(coalesce(avg(pending), 0), 3),
                   'median', coalesce(percentile_cont(0.5) WITHIN GROUP (ORDER BY pending), 0),
                   'min', coalesce(min(pending), 0), 'max', coalesce(max(pending), 0)) FROM s)),
    'throughput', (SELECT jsonb_build_object('ingestedPerSecond', round(pushed / 300.0, 3),
                                             'processedPerSecond', round(acked / 300.0, 3)) FROM recent),
    'timestamp', queen_internal.iso_millis(clock_timestamp()),
    'statsAge', (SELECT queen_internal.stats_age_seconds(min(updated_at)) FROM s))
$function$;
COMMENT ON FUNCTION queen.resources_overview(text,jsonb) IS
  'GET /api/v1/resources/overview for tenant p_tenant: counts of queues, partitions, namespaces and tasks, message counters, lag (time in seconds, offset in messages) over queues, throughput of the last 5 minutes, timestamp and statsAge (seconds since the stalest refresh).';

CREATE OR REPLACE FUNCTION queen.resources_queues(p_tenant text, p_params jsonb DEFAULT '{}'::jsonb)
 RETURNS jsonb
 LANGUAGE sql
 STABLE SECURITY DEFINER
 SET search_path TO 'pg_catalog', 'queen', 'queen_internal', 'pg_temp'
AS $function$
  WITH q AS (
    SELECT q.* FROM queen_internal.stats_queues(p_tenant, p_params - 'queue') q
     WHERE p_params->>'search' IS NULL
        OR strpos(lower(q.name), lower(p_params->>'search')) > 0
  ), page AS (
    SELECT q.*, s.partitions AS n_partitions, s.total, s.pending, s.processing
      FROM q LEFT JOIN queen.queue_stats s ON s.queue_id = q.id
     ORDER BY q.created_at DESC, q.id DESC
     LIMIT coalesce((p_params->>'limit')::int, 100) OFFSET coalesce((p_params->>'offset')::int, 0)
  )
  SELECT jsonb_build_object(
    'queues', coalesce((SELECT jsonb_agg(jsonb_build_object(
        'id', p.id, 'name', p.name, 'namespace', nullif(p.namespace, ''), 'task', nullif(p.task, ''),
        'createdAt', queen_internal.iso_millis(p.created_at),
        'partitions', coalesce(p.n_partitions, (SELECT count(*) FROM queen.partitions x WHERE x.queue_id = p.id)),
        'messages', jsonb_build_object('total', coalesce(p.total, 0), 'pending', coalesce(p.pending, 0),
                                       'processing', coalesce(p.processing, 0)))
        ORDER BY p.created_at DESC, p.id DESC) FROM page p), '[]'::jsonb),
    'total', (SELECT count(*) FROM q),
    'pagination', jsonb_build_object('limit', coalesce((p_params->>'limit')::int, 100),
                                     'offset', coalesce((p_params->>'offset')::int, 0)))
$function$;
COMMENT ON FUNCTION queen.resources_queues(text,jsonb) IS
  'GET /api/v1/resources/queues: the tenant''s queues (namespace, task and search = case-insensitive substring of the name filters), newest first, paged by limit (default 100) and offset, with partitions and message counters from queue_stats; total = matching queues.';

CREATE OR REPLACE FUNCTION queen.resources_queue(p_tenant text, p_params jsonb)
 RETURNS jsonb
 LANGUAGE sql
 STABLE SECURITY DEFINER
 SET search_path TO 'pg_catalog', 'queen', 'queen_internal', 'pg_temp'
AS $function$
  WITH q AS (SELECT * FROM queen.queues q
              WHERE q.tenant = queen_internal.tenant_arg(p_tenant) AND q.name = p_params->>'queue'),
  p AS (SELECT x.* FROM q, queen_internal.stats_partitions(q.id, (p_params->>'limit')::int, (p_params->>'offset')::int) x),
  t AS (SELECT s.* FROM q, queen_internal.compute_queue_stats(q.id) s)
  SELECT jsonb_build_object(
    'id', q.id, 'name', q.name, 'namespace', nullif(q.namespace, ''), 'task', nullif(q.task, ''),
    'createdAt', queen_internal.iso_millis(q.created_at),
    'partitions', coalesce((SELECT jsonb_agg(jsonb_build_object(
        'id', p.id, 'name', p.name, 'createdAt', queen_internal.iso_millis(p.created_at),
        'stats', queen_internal.stats_counters(p.total, p.pending, p.processing, p.completed, p.dead_letter),
        'oldestMessage', queen_internal.iso_millis(p.oldest_message_at), 'newestMessage', queen_internal.iso_millis(p.newest_message_at))
        ORDER BY p.name) FROM p), '[]'::jsonb),
    'pagination', jsonb_build_object('limit', (p_params->>'limit')::int, 'offset', (p_params->>'offset')::int,
                                     'total', (SELECT t.partitions FROM t)),
    'totals', (SELECT queen_internal.stats_counters(t.total, t.pending, t.processing, t.completed, t.dead_letter) FROM t))
    FROM q
$function$;
COMMENT ON FUNCTION queen.resources_queue(text,jsonb) IS
  'GET /api/v1/resources/queues/:queue (p_params.queue, limit, offset): the queue with one page of its partitions (by name) and their live counters (total, pending, processing, completed, failed, deadLetter) and oldest/newest message times, pagination {limit, offset, total partitions}, and the whole queue''s totals computed now (compute_queue_stats); null when the tenant has no such queue.';

CREATE OR REPLACE FUNCTION queen_internal.resources_groups(p_tenant text, p_by text)
 RETURNS jsonb
 LANGUAGE sql
 STABLE
AS $function$
  SELECT coalesce(jsonb_agg(jsonb_build_object(
           p_by, g.key, 'queues', g.queues, 'partitions', g.partitions,
           'messages', jsonb_build_object('total', g.total, 'pending', g.pending)) ORDER BY g.key), '[]'::jsonb)
    FROM (SELECT CASE p_by WHEN 'namespace' THEN q.namespace ELSE q.task END AS key, count(*) AS queues,
                 coalesce(sum(s.partitions), 0) AS partitions, coalesce(sum(s.total), 0) AS total,
                 coalesce(sum(s.pending), 0) AS pending
            FROM queen_internal.stats_queues(p_tenant, '{}') q
            LEFT JOIN queen.queue_stats s ON s.queue_id = q.id
           WHERE CASE p_by WHEN 'namespace' THEN q.namespace ELSE q.task END <> ''
           GROUP BY 1) g
$function$;
COMMENT ON FUNCTION queen_internal.resources_groups(text,text) IS
  'The tenant''s queues grouped by namespace or task (p_by): [{<p_by>, queues, partitions, messages {total, pending}}]; queues without one are left out.';

CREATE OR REPLACE FUNCTION queen.resources_namespaces(p_tenant text, p_params jsonb DEFAULT '{}'::jsonb)
 RETURNS jsonb
 LANGUAGE sql
 STABLE SECURITY DEFINER
 SET search_path TO 'pg_catalog', 'queen', 'queen_internal', 'pg_temp'
AS $function$ SELECT jsonb_build_object('namespaces', queen_internal.resources_groups(p_tenant, 'namespace')) $function$;
COMMENT ON FUNCTION queen.resources_namespaces(text,jsonb) IS
  'GET /api/v1/resources/namespaces: {"namespaces": [{namespace, queues, partitions, messages {total, pending}}]}.';

CREATE OR REPLACE FUNCTION queen.resources_tasks(p_tenant text, p_params jsonb DEFAULT '{}'::jsonb)
 RETURNS jsonb
 LANGUAGE sql
 STABLE SECURITY DEFINER
 SET search_path TO 'pg_catalog', 'queen', 'queen_internal', 'pg_temp'
AS $function$ SELECT jsonb_build_object('tasks', queen_internal.resources_groups(p_tenant, 'task')) $function$;
COMMENT ON FUNCTION queen.resources_tasks(text,jsonb) IS
  'GET /api/v1/resources/tasks: {"tasks": [{task, queues, partitions, messages {total, pending}}]}.';

RESET ROLE;

COMMIT;
