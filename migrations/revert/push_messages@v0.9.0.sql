-- Revert queen:push_messages from pg
BEGIN;
DROP FUNCTION queen.push_messages(jsonb, text, text);
DROP TYPE queen.push_item_route;
COMMIT;
