-- Verify queen:analyze_grown_tables on pg
BEGIN;
SELECT has_function_privilege('queen_broker', 'queen.analyze_grown_tables(bigint)', 'execute');
SELECT 1 / (NOT has_function_privilege('public', 'queen.analyze_grown_tables(bigint)', 'execute'))::int;
ROLLBACK;
