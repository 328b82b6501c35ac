-- Verify queen:timers_schedule on pg (release 1.1.0)

BEGIN;

SELECT has_function_privilege('queen_internal.schedule_messages(jsonb, text, text)', 'execute');
SELECT has_function_privilege('queen_internal.check_schedule_items(jsonb)', 'execute');
SELECT has_function_privilege('queen_internal.parse_schedule_items(jsonb, text)', 'execute');
SELECT has_function_privilege('queen_internal.insert_new_timers(queen.schedule_item[], text, text)', 'execute');
-- the 1.1.0 refusal: any plaintext item of an encrypted queue, keyHeld or not
SELECT 1 / (pg_get_functiondef('queen_internal.parse_schedule_items(jsonb, text)'::regprocedure)
            LIKE '%AND (NOT i.is_encrypted%')::int;

ROLLBACK;
