-- Verify queen:delete_queue on pg
SELECT has_function_privilege('queen.delete_queue(text, text)', 'execute');
