-- Verify queen:dlq_admin on pg
SELECT has_function_privilege('queen.requeue_dead_letters(text, text, text, timestamptz, timestamptz, uuid, text)', 'execute');
SELECT has_function_privilege('queen.delete_dead_letters(text, text, text, timestamptz, timestamptz, uuid, text)', 'execute');
SELECT has_function_privilege('queen.retry_dead_message(uuid, text, text)', 'execute');
