-- Revert queen:kv from pg

BEGIN;

DROP FUNCTION queen.kv_prune_expired(int);
DROP FUNCTION queen.kv_delete(text);
DROP FUNCTION queen.kv_get(text);
DROP FUNCTION queen.kv_set(text, jsonb, bigint);
DROP FUNCTION queen.kv_check_key(text);
DROP TABLE queen.kv;

COMMIT;
