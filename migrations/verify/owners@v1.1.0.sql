-- Verify queen:owners on pg
SELECT 1 / count(*) FROM pg_namespace WHERE nspname = 'queen' AND nspowner = 'queen_owner'::regrole;
SELECT 1 / (count(*) = 0)::int FROM pg_class WHERE relnamespace = 'queen'::regnamespace AND relowner <> 'queen_owner'::regrole;
SELECT 1 / has_table_privilege('queen_admin', 'queen.messages', 'SELECT')::int;
