-- Verify queen:stats_views on pg

BEGIN;

SELECT has_function_privilege('queen.stats_window(jsonb, interval)', 'execute');
SELECT has_function_privilege('queen.stats_bucket_minutes(timestamptz, timestamptz)', 'execute');
SELECT has_function_privilege('queen.stats_bucket(timestamptz, int)', 'execute');
SELECT has_function_privilege('queen.stats_queues(text, jsonb)', 'execute');
SELECT has_function_privilege('queen.stats_series(uuid[], timestamptz, timestamptz, int)', 'execute');
SELECT has_function_privilege('queen.stats_partitions(uuid, int, int)', 'execute');
SELECT has_function_privilege('queen.stats_counters(numeric, numeric, numeric, numeric, numeric)', 'execute');
SELECT has_function_privilege('queen.stats_age_seconds(timestamptz)', 'execute');
SELECT has_function_privilege('queen.resources_overview(text, jsonb)', 'execute');
SELECT has_function_privilege('queen.resources_queues(text, jsonb)', 'execute');
SELECT has_function_privilege('queen.resources_queue(text, jsonb)', 'execute');
SELECT has_function_privilege('queen.resources_groups(text, text)', 'execute');
SELECT has_function_privilege('queen.resources_namespaces(text, jsonb)', 'execute');
SELECT has_function_privilege('queen.resources_tasks(text, jsonb)', 'execute');
SELECT has_function_privilege('queen.stats_workers(timestamptz, timestamptz)', 'execute');
SELECT has_function_privilege('queen.status_overview(text, jsonb)', 'execute');
SELECT has_function_privilege('queen.status_queues(text, jsonb)', 'execute');
SELECT has_function_privilege('queen.status_queue(text, jsonb)', 'execute');
SELECT has_function_privilege('queen.status_queue_messages(text, jsonb)', 'execute');
SELECT has_function_privilege('queen.status_analytics(text, jsonb)', 'execute');
SELECT has_function_privilege('queen.analytics_system_metrics(text, jsonb)', 'execute');
SELECT has_function_privilege('queen.analytics_worker_metrics(text, jsonb)', 'execute');
SELECT has_function_privilege('queen.analytics_postgres_stats(text, jsonb)', 'execute');
SELECT has_function_privilege('queen.analytics_per_queue(text, jsonb, text[])', 'execute');
SELECT has_function_privilege('queen.analytics_queue_lag(text, jsonb)', 'execute');
SELECT has_function_privilege('queen.analytics_queue_ops(text, jsonb)', 'execute');
SELECT has_function_privilege('queen.analytics_parked_replicas(text, jsonb)', 'execute');
SELECT has_function_privilege('queen.analytics_retention(text, jsonb)', 'execute');

ROLLBACK;
