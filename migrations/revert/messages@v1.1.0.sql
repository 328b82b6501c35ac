-- Revert queen:messages from pg
BEGIN;
DROP TABLE queen.messages;
COMMIT;
