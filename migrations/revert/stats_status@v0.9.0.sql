-- Revert queen:stats_status from pg

BEGIN;

DROP FUNCTION queen.status_analytics(text, jsonb);
DROP FUNCTION queen.status_queue_messages(text, jsonb);
DROP FUNCTION queen.status_queue(text, jsonb);
DROP FUNCTION queen.status_queues(text, jsonb);
DROP FUNCTION queen.status_overview(text, jsonb);
DROP FUNCTION queen.stats_workers(timestamptz, timestamptz);

COMMIT;
