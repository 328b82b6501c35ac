-- Revert queen:run_transaction from pg
BEGIN;
DROP FUNCTION queen.run_transaction(jsonb, text);
DROP FUNCTION queen.transaction_ack(jsonb);
COMMIT;
