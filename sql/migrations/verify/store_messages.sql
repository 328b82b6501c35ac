-- Verify queen:store_messages on pg
BEGIN;
SELECT has_function_privilege('queen.queue_pending_count(uuid)', 'execute');
SELECT has_function_privilege('queen.store_messages(jsonb, text, uuid[], text)', 'execute');
ROLLBACK;
