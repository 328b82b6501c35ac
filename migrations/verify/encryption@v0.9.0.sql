-- Verify queen:encryption on pg
BEGIN;
SELECT has_function_privilege('queen.encrypted_queue_names()', 'execute');
SELECT has_function_privilege('queen.dead_letter_undecryptable(jsonb, text, text)', 'execute');
ROLLBACK;
