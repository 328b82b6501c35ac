-- Revert queen:dlq from pg
BEGIN;
DROP FUNCTION queen.dlq_matching(text, text, text, text, timestamptz, timestamptz, uuid);
DROP TABLE queen.dlq;
COMMIT;
