-- Verify queen:store_messages on pg (release 2.0.0)
BEGIN;
SELECT has_function_privilege('queen_internal.queue_pending_count(uuid)', 'execute');
SELECT has_function_privilege('queen_internal.store_messages(jsonb, text, uuid[], text)', 'execute');
SELECT has_function_privilege('queen_internal.store_items(jsonb, text, uuid[], text, jsonb)', 'execute');
SELECT has_function_privilege('queen_internal.create_push_targets(jsonb, text, queen.push_target[])', 'execute');
SELECT has_function_privilege('queen_internal.refused_push_partitions(jsonb, queen.push_target[])', 'execute');
SELECT has_function_privilege('queen_internal.insert_push_items(jsonb, text, uuid[], queen.push_target[], uuid[], timestamptz)', 'execute');
-- the refusal: any plaintext item of an encrypted queue, keyHeld or not
SELECT 1 / (pg_get_functiondef('queen_internal.insert_push_items(jsonb, text, uuid[], queen.push_target[], uuid[], timestamptz)'::regprocedure)
            LIKE '%OR (coalesce(t.encryption_enabled, false) AND NOT i.is_encrypted) AS refused%')::int;
ROLLBACK;
