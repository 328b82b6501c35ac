-- Verify queen:pop_many on pg
SELECT has_function_privilege('queen.pop_many(int, text, text, text, int, int, bool, text, text, text, text, text, timestamptz)', 'execute');
