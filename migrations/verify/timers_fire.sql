-- Verify queen:timers_fire on pg

BEGIN;

SELECT has_function_privilege('queen.claim_due_timers(text, int, int, timestamptz)', 'execute');
SELECT has_function_privilege('queen_internal.fire_locked_timers(bigint[], text, text)', 'execute');
SELECT has_function_privilege('queen.fire_timers(text, bigint[], timestamptz)', 'execute');
SELECT has_function_privilege('queen.next_timer_due()', 'execute');
SELECT has_function_privilege('queen.timer_queue_names(bigint[])', 'execute');

ROLLBACK;
