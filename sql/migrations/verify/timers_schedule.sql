-- Verify queen:timers_schedule on pg

BEGIN;

SELECT has_function_privilege('queen.schedule_messages(jsonb, text, text)', 'execute');

ROLLBACK;
