-- Verify queen:roles on pg
SELECT 1 / (count(*) = 4)::int FROM pg_roles
 WHERE rolname IN ('queen_owner', 'queen_broker', 'queen_reader', 'queen_admin') AND NOT rolsuper;
