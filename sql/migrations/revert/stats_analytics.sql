-- Revert queen:stats_analytics from pg

BEGIN;
SET LOCAL ROLE queen_owner;  -- the objects' owner (docs/procedures.md, Roles)

DROP FUNCTION queen.analytics_retention(text, jsonb);
DROP FUNCTION queen.analytics_parked_replicas(text, jsonb);
DROP FUNCTION queen.analytics_queue_ops(text, jsonb);
DROP FUNCTION queen.analytics_queue_lag(text, jsonb);
DROP FUNCTION queen_internal.analytics_per_queue(text, jsonb, text[]);
DROP FUNCTION queen.analytics_postgres_stats(text, jsonb);
DROP FUNCTION queen.analytics_worker_metrics(text, jsonb);
DROP FUNCTION queen.analytics_system_metrics(text, jsonb);

COMMIT;
