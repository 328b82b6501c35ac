-- Verify queen:configure_queue on pg
SELECT has_function_privilege('queen.configure_queue(text, text, text, jsonb, text)', 'execute');
