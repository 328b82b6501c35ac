-- Revert queen:dlq from pg
BEGIN;
DROP TABLE queen.dlq;
COMMIT;
