-- Verify queen:pop_messages on pg
BEGIN;
SELECT has_function_privilege('queen.pop_messages(text, text, text, int, int, bool, text, text, text, text, text, timestamptz)', 'execute');
SELECT has_function_privilege('queen.register_consumer_group(uuid, text, text, text, text)', 'execute');
SELECT has_function_privilege('queen.create_cursors(uuid[], text, text, text, text)', 'execute');
SELECT has_function_privilege('queen.cursor_is_free(uuid, timestamptz, timestamptz, int, timestamptz)', 'execute');
SELECT has_function_privilege('queen.pop_queue_ids(text, text, text, text)', 'execute');
SELECT has_function_privilege('queen.pop_record_start_point(text, text, uuid[], text, uuid, text, text, text, text, timestamptz)', 'execute');
SELECT has_function_privilege('queen.pop_candidates(uuid[], uuid, text, int, timestamptz)', 'execute');
SELECT has_function_privilege('queen.pop_claim_partitions(uuid[], text, int, timestamptz)', 'execute');
SELECT has_function_privilege('queen.pop_lease_messages(uuid[], text, int, bool, uuid, timestamptz)', 'execute');
ROLLBACK;
