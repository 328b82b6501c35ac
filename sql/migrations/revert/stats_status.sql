-- Revert queen:stats_status from pg

BEGIN;
SET LOCAL ROLE queen_owner;  -- the objects' owner (docs/procedures.md, Roles)

DROP FUNCTION queen.status_analytics(text, jsonb);
DROP FUNCTION queen.status_queue_messages(text, jsonb);
DROP FUNCTION queen.status_queue(text, jsonb);
DROP FUNCTION queen.status_queues(text, jsonb);
DROP FUNCTION queen.status_overview(text, jsonb);
DROP FUNCTION queen_internal.stats_workers(timestamptz, timestamptz);

COMMIT;
