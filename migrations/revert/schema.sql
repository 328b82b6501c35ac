-- Revert queen:schema from pg
BEGIN;
DROP SCHEMA queen;
COMMIT;
