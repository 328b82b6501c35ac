-- Verify queen:timers_schedule on pg

BEGIN;

SELECT has_function_privilege('queen.schedule_messages(jsonb, text, text)', 'execute');
SELECT has_function_privilege('queen.check_schedule_items(jsonb)', 'execute');
SELECT has_function_privilege('queen.parse_schedule_items(jsonb, text)', 'execute');
SELECT has_function_privilege('queen.insert_new_timers(queen.schedule_item[], text, text)', 'execute');

ROLLBACK;
