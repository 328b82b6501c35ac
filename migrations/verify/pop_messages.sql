-- Verify queen:pop_messages on pg (release 1.1.0)
BEGIN;
SELECT has_function_privilege('queen.pop_messages(text, text, text, int, int, bool, text, text, text, text, text, timestamptz)', 'execute');
SELECT has_function_privilege('queen_internal.register_consumer_group(uuid, text, text, text, text)', 'execute');
SELECT has_function_privilege('queen_internal.create_cursors(uuid[], text, text, text, text)', 'execute');
SELECT has_function_privilege('queen_internal.cursor_is_free(uuid, timestamptz, timestamptz, int, timestamptz)', 'execute');
SELECT has_function_privilege('queen_internal.pop_record_start_point(text, text, uuid[], text, uuid, text, text, text, text, timestamptz)', 'execute');
SELECT has_function_privilege('queen_internal.pop_candidates(uuid[], uuid, text, int, timestamptz)', 'execute');
SELECT has_function_privilege('queen_internal.pop_claim_partitions(uuid[], text, int, timestamptz)', 'execute');
-- folded into pop_messages
SELECT 1 / (to_regprocedure('queen_internal.pop_queue_ids(text, text, text, text)') IS NULL)::int;
SELECT 1 / (to_regprocedure('queen_internal.pop_lease_messages(uuid[], text, int, bool, uuid, timestamptz)') IS NULL)::int;
ROLLBACK;
