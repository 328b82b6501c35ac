-- Verify queen:rules on pg
BEGIN;
SELECT 1 / (queen.name_max_chars() > 0)::int;
SELECT repeat('n', queen.name_max_chars())::queen.name_text;
SELECT has_function_privilege('queen.name_problem(text)', 'execute');
SELECT has_function_privilege('queen.check_at_least(text, bigint, bigint)', 'execute');
SELECT 1 / (queen.iso_millis('2025-03-04 09:15:26.123+00') = '2025-03-04T09:15:26.123Z')::int;
SELECT ''::queen.tenant_text;
SELECT has_function_privilege('queen.tenant_arg(text)', 'execute');
ROLLBACK;
