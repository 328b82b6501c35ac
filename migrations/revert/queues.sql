-- Revert queen:queues from pg
BEGIN;
DROP TABLE queen.queues;
COMMIT;
