-- Revert queen:timers_schedule from pg

BEGIN;

DROP FUNCTION queen.schedule_messages(jsonb, text, text);
DROP FUNCTION queen.insert_new_timers(queen.schedule_item[], text, text);
DROP FUNCTION queen.parse_schedule_items(jsonb, text);
DROP FUNCTION queen.check_schedule_items(jsonb);
DROP TYPE queen.schedule_item;

COMMIT;
