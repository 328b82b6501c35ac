-- Verify queen:apply_retention on pg
SELECT has_function_privilege('queen.apply_retention(int, interval, timestamptz)', 'execute');
