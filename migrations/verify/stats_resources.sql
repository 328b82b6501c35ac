-- Verify queen:stats_resources on pg

BEGIN;

SELECT has_function_privilege('queen.resources_overview(text, jsonb)', 'execute');
SELECT has_function_privilege('queen.resources_queues(text, jsonb)', 'execute');
SELECT has_function_privilege('queen.resources_queue(text, jsonb)', 'execute');
SELECT has_function_privilege('queen_internal.resources_groups(text, text)', 'execute');
SELECT has_function_privilege('queen.resources_namespaces(text, jsonb)', 'execute');
SELECT has_function_privilege('queen.resources_tasks(text, jsonb)', 'execute');

ROLLBACK;
