-- Revert queen:stats_views from pg

BEGIN;

DROP FUNCTION queen.analytics_retention(text, jsonb);
DROP FUNCTION queen.analytics_parked_replicas(text, jsonb);
DROP FUNCTION queen.analytics_queue_ops(text, jsonb);
DROP FUNCTION queen.analytics_queue_lag(text, jsonb);
DROP FUNCTION queen.analytics_per_queue(text, jsonb, text[]);
DROP FUNCTION queen.analytics_postgres_stats(text, jsonb);
DROP FUNCTION queen.analytics_worker_metrics(text, jsonb);
DROP FUNCTION queen.analytics_system_metrics(text, jsonb);
DROP FUNCTION queen.status_analytics(text, jsonb);
DROP FUNCTION queen.status_queue_messages(text, jsonb);
DROP FUNCTION queen.status_queue(text, jsonb);
DROP FUNCTION queen.status_queues(text, jsonb);
DROP FUNCTION queen.status_overview(text, jsonb);
DROP FUNCTION queen.stats_workers(timestamptz, timestamptz);
DROP FUNCTION queen.resources_tasks(text, jsonb);
DROP FUNCTION queen.resources_namespaces(text, jsonb);
DROP FUNCTION queen.resources_groups(text, text);
DROP FUNCTION queen.resources_queue(text, jsonb);
DROP FUNCTION queen.resources_queues(text, jsonb);
DROP FUNCTION queen.resources_overview(text, jsonb);
DROP FUNCTION queen.stats_age_seconds(timestamptz);
DROP FUNCTION queen.stats_counters(numeric, numeric, numeric, numeric, numeric);
DROP FUNCTION queen.stats_partitions(uuid, int, int);
DROP FUNCTION queen.stats_series(uuid[], timestamptz, timestamptz, int);
DROP FUNCTION queen.stats_queues(text, jsonb);
DROP FUNCTION queen.stats_bucket(timestamptz, int);
DROP FUNCTION queen.stats_bucket_minutes(timestamptz, timestamptz);
DROP FUNCTION queen.stats_window(jsonb, interval);

COMMIT;
