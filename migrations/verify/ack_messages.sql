-- Verify queen:ack_messages on pg (release 1.1.0)
SELECT has_function_privilege('queen.ack_messages(jsonb, text, text, timestamptz)', 'execute');
SELECT has_function_privilege('queen_internal.apply_acks(jsonb, text, text, timestamptz)', 'execute');
SELECT has_function_privilege('queen_internal.ack_item_error(bigint, text, text, uuid, uuid, uuid)', 'execute');
SELECT has_function_privilege('queen_internal.ack_item_action(text, bigint, bigint, int, int, bool, uuid, uuid, uuid)', 'execute');
SELECT has_function_privilege('queen_internal.ack_lease_group(jsonb, text)', 'execute');
SELECT has_function_privilege('queen_internal.check_ack_items(jsonb)', 'execute');
SELECT has_function_privilege('queen_internal.ack_item_rows(jsonb, text)', 'execute');
SELECT has_function_privilege('queen_internal.lock_ack_cursor(uuid, text)', 'execute');
SELECT has_function_privilege('queen_internal.release_ack_batch(queen.consumers, boolean, timestamptz)', 'execute');
