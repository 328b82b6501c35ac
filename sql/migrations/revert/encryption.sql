-- Revert queen:encryption from pg
BEGIN;
SET LOCAL ROLE queen_owner;  -- the objects' owner (docs/procedures.md, Roles)
DROP FUNCTION queen.dead_letter_undecryptable(jsonb, text, text);
DROP FUNCTION queen.encrypted_queue_names();
COMMIT;
