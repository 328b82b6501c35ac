-- Revert queen:pop_many from pg
BEGIN;
DROP FUNCTION queen.pop_many(int, text, text, text, int, int, bool, text, text, text, text, text, timestamptz);
COMMIT;
