-- Verify queen:owners on pg (release 2.0.0)
-- As before, with the stored messages read through whichever of queen.messages and queen.stored_messages exists
-- (this instance runs before the program's step).
SELECT 1 / count(*) FROM pg_namespace WHERE nspname = 'queen' AND nspowner = 'queen_owner'::regrole;
SELECT 1 / (count(*) = 0)::int FROM pg_class WHERE relnamespace = 'queen'::regnamespace AND relowner <> 'queen_owner'::regrole;
SELECT 1 / has_table_privilege('queen_admin', coalesce(to_regclass('queen.stored_messages'), to_regclass('queen.messages')), 'SELECT')::int;
