-- Revert queen:run_transaction from pg
BEGIN;
DROP FUNCTION queen.run_transaction(jsonb, text, text, timestamptz);
DROP FUNCTION queen.transaction_ack(jsonb, timestamptz, text);
COMMIT;
