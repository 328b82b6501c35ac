-- Verify queen:grants on pg
SELECT 1 / has_function_privilege('queen_broker', 'queen.push_messages(jsonb, text, text)', 'EXECUTE')::int;
SELECT 1 / has_function_privilege('queen_reader', 'queen.schema_version()', 'EXECUTE')::int;
SELECT 1 / (NOT has_function_privilege('queen_reader', 'queen.push_messages(jsonb, text, text)', 'EXECUTE'))::int;
SELECT 1 / has_schema_privilege('queen_broker', 'queen', 'USAGE')::int;
