-- Verify queen:stats_status on pg

BEGIN;

SELECT has_function_privilege('queen_internal.stats_workers(timestamptz, timestamptz)', 'execute');
SELECT has_function_privilege('queen.status_overview(text, jsonb)', 'execute');
SELECT has_function_privilege('queen.status_queues(text, jsonb)', 'execute');
SELECT has_function_privilege('queen.status_queue(text, jsonb)', 'execute');
SELECT has_function_privilege('queen.status_queue_messages(text, jsonb)', 'execute');
SELECT has_function_privilege('queen.status_analytics(text, jsonb)', 'execute');

ROLLBACK;
