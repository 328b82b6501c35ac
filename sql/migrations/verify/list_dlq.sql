-- Verify queen:list_dlq on pg
SELECT has_function_privilege('queen.list_dlq(text, text, text, timestamptz, timestamptz, int, int, text)', 'execute');
