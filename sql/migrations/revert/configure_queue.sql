-- Revert queen:configure_queue from pg
BEGIN;
SET LOCAL ROLE queen_owner;  -- the objects' owner (docs/procedures.md, Roles)
DROP FUNCTION queen.configure_queue(text, text, text, jsonb, text);
DROP FUNCTION queen_internal.queue_options_json(queen.queues);
DROP FUNCTION queen_internal.option_bool(jsonb, text, bool);
DROP FUNCTION queen_internal.option_int(jsonb, text, int, int);
COMMIT;
