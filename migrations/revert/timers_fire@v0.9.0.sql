-- Revert queen:timers_fire from pg

BEGIN;

DROP FUNCTION queen.timer_queue_names(bigint[]);
DROP FUNCTION queen.next_timer_due();
DROP FUNCTION queen.fire_timers(text, bigint[], timestamptz);
DROP FUNCTION queen.fire_locked_timers(bigint[], text, text);
DROP FUNCTION queen.claim_due_timers(text, int, int, timestamptz);

COMMIT;
