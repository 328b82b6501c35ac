-- Verify queen:pop_messages on pg
SELECT has_function_privilege('queen.pop_messages(text, text, text, int, int, bool, text, text, text, text, text, timestamptz)', 'execute');
