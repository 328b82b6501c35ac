-- Revert queen:stats_analytics from pg

BEGIN;

DROP FUNCTION queen.analytics_retention(text, jsonb);
DROP FUNCTION queen.analytics_parked_replicas(text, jsonb);
DROP FUNCTION queen.analytics_queue_ops(text, jsonb);
DROP FUNCTION queen.analytics_queue_lag(text, jsonb);
DROP FUNCTION queen.analytics_per_queue(text, jsonb, text[]);
DROP FUNCTION queen.analytics_postgres_stats(text, jsonb);
DROP FUNCTION queen.analytics_worker_metrics(text, jsonb);
DROP FUNCTION queen.analytics_system_metrics(text, jsonb);

COMMIT;
