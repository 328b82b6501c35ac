-- Revert queen:segments from pg
BEGIN;
DROP TABLE queen.segments;
COMMIT;
