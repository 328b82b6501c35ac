-- Revert queen:stats_resources from pg

BEGIN;

DROP FUNCTION queen.resources_tasks(text, jsonb);
DROP FUNCTION queen.resources_namespaces(text, jsonb);
DROP FUNCTION queen.resources_groups(text, text);
DROP FUNCTION queen.resources_queue(text, jsonb);
DROP FUNCTION queen.resources_queues(text, jsonb);
DROP FUNCTION queen.resources_overview(text, jsonb);

COMMIT;
