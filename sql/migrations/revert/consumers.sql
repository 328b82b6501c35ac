-- Revert queen:consumers from pg
BEGIN;
DROP TABLE queen.consumers;
COMMIT;
