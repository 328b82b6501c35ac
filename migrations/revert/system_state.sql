-- Revert queen:system_state from pg
BEGIN;
DROP TABLE queen.system_state;
COMMIT;
