-- Verify queen:push_messages on pg
SELECT has_function_privilege('queen.push_messages(jsonb, text)', 'execute');
