-- Revert queen:partitions from pg
BEGIN;
DROP TABLE queen.partitions;
COMMIT;
