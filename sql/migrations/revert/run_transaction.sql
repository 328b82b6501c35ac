-- Revert queen:run_transaction from pg
BEGIN;
SET LOCAL ROLE queen_owner;  -- the objects' owner (docs/procedures.md, Roles)
DROP FUNCTION queen.run_transaction(jsonb, text, text, timestamptz);
DROP FUNCTION queen_internal.transaction_ack(jsonb, timestamptz, text);
COMMIT;
