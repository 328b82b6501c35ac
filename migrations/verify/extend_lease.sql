-- Verify queen:extend_lease on pg
SELECT has_function_privilege('queen.extend_lease(uuid, int, text, timestamptz)', 'execute');
