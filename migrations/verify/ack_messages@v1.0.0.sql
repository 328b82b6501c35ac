-- Verify queen:ack_messages on pg
SELECT has_function_privilege('queen.ack_messages(jsonb, text, text, timestamptz)', 'execute');
SELECT has_function_privilege('queen_internal.ack_lease_group(jsonb, text)', 'execute');
SELECT has_function_privilege('queen_internal.check_ack_items(jsonb)', 'execute');
SELECT has_function_privilege('queen_internal.ack_item_rows(jsonb, text)', 'execute');
SELECT has_function_privilege('queen_internal.lock_ack_cursor(uuid, text)', 'execute');
