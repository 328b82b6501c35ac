-- Revert queen:dedup_tombstones from pg
BEGIN;
DROP TABLE queen.dedup_tombstones;
COMMIT;
