-- Verify queen:rules on pg
BEGIN;
SELECT 1 / (queen_internal.name_max_chars() > 0)::int;
SELECT repeat('n', queen_internal.name_max_chars())::queen.name_text;
SELECT has_function_privilege('queen_internal.name_problem(text)', 'execute');
SELECT has_function_privilege('queen_internal.check_at_least(text, bigint, bigint)', 'execute');
SELECT 1 / (queen_internal.iso_millis('2025-03-04 09:15:26.123+00') = '2025-03-04T09:15:26.123Z')::int;
SELECT ''::queen.tenant_text;
SELECT has_function_privilege('queen_internal.tenant_arg(text)', 'execute');
ROLLBACK;
