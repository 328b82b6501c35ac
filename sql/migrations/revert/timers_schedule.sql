-- Revert queen:timers_schedule from pg

BEGIN;
SET LOCAL ROLE queen_owner;  -- the objects' owner (docs/procedures.md, Roles)

DROP FUNCTION queen_internal.schedule_messages(jsonb, text, text);
DROP FUNCTION queen_internal.insert_new_timers(queen.schedule_item[], text, text);
DROP FUNCTION queen_internal.parse_schedule_items(jsonb, text);
DROP FUNCTION queen_internal.check_schedule_items(jsonb);
DROP TYPE queen.schedule_item;

COMMIT;
