-- Revert queen:timers_schedule from pg

BEGIN;

DROP FUNCTION queen.schedule_messages(jsonb, text, text);
DROP TYPE queen.schedule_item;

COMMIT;
