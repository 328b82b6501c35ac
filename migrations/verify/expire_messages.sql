-- Verify queen:expire_messages on pg
SELECT has_function_privilege('queen.expire_messages(int, timestamptz)', 'execute');
