-- Revert queen:push_messages from pg
BEGIN;
SET LOCAL ROLE queen_owner;  -- the objects' owner (docs/procedures.md, Roles)
DROP FUNCTION queen.push_messages(jsonb, text, text);
DROP TYPE queen.push_item_route;
COMMIT;
