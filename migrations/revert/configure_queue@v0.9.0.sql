-- Revert queen:configure_queue from pg
BEGIN;
DROP FUNCTION queen.configure_queue(text, text, text, jsonb, text);
DROP FUNCTION queen.queue_options_json(queen.queues);
DROP FUNCTION queen.option_bool(jsonb, text, bool);
DROP FUNCTION queen.option_int(jsonb, text, int, int);
COMMIT;
