-- Revert queen:subscriptions from pg
BEGIN;
DROP TABLE queen.subscriptions;
COMMIT;
