-- Verify queen:ack_messages on pg
SELECT has_function_privilege('queen.ack_messages(jsonb, text, text, timestamptz)', 'execute');
SELECT has_function_privilege('queen.ack_lease_group(jsonb, text)', 'execute');
SELECT has_function_privilege('queen.check_ack_items(jsonb)', 'execute');
SELECT has_function_privilege('queen.ack_item_rows(jsonb, text)', 'execute');
SELECT has_function_privilege('queen.lock_ack_cursor(uuid, text)', 'execute');
