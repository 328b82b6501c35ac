-- Revert queen:kv from pg

BEGIN;

DROP FUNCTION queen.kv_prune_expired(int, timestamptz);
DROP FUNCTION queen.kv_delete(text, text, timestamptz);
DROP FUNCTION queen.kv_get(text, text, timestamptz);
DROP FUNCTION queen.kv_set(text, jsonb, bigint, text, timestamptz);
DROP FUNCTION queen.kv_is_live(timestamptz, timestamptz);
DROP FUNCTION queen.kv_check_key(text);
DROP TABLE queen.kv;

COMMIT;
