-- Verify queen:stats_analytics on pg

BEGIN;

SELECT has_function_privilege('queen.analytics_system_metrics(text, jsonb)', 'execute');
SELECT has_function_privilege('queen.analytics_worker_metrics(text, jsonb)', 'execute');
SELECT has_function_privilege('queen.analytics_postgres_stats(text, jsonb)', 'execute');
SELECT has_function_privilege('queen.analytics_per_queue(text, jsonb, text[])', 'execute');
SELECT has_function_privilege('queen.analytics_queue_lag(text, jsonb)', 'execute');
SELECT has_function_privilege('queen.analytics_queue_ops(text, jsonb)', 'execute');
SELECT has_function_privilege('queen.analytics_parked_replicas(text, jsonb)', 'execute');
SELECT has_function_privilege('queen.analytics_retention(text, jsonb)', 'execute');

ROLLBACK;
