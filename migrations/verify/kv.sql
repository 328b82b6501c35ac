-- Verify queen:kv on pg

BEGIN;

SELECT tenant, key, value, expires_at, updated_at FROM queen.kv WHERE false;
SELECT has_function_privilege('queen_internal.kv_check_key(text)', 'execute');
SELECT has_function_privilege('queen_internal.kv_is_live(timestamptz, timestamptz)', 'execute');
SELECT has_function_privilege('queen.kv_set(text, jsonb, bigint, text, timestamptz)', 'execute');
SELECT has_function_privilege('queen.kv_get(text, text, timestamptz)', 'execute');
SELECT has_function_privilege('queen.kv_delete(text, text, timestamptz)', 'execute');
SELECT has_function_privilege('queen.kv_prune_expired(int, timestamptz)', 'execute');

ROLLBACK;
