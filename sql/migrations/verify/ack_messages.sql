-- Verify queen:ack_messages on pg
SELECT has_function_privilege('queen.ack_messages(jsonb, text, text, timestamptz)', 'execute');
SELECT has_function_privilege('queen.ack_lease_group(jsonb, text)', 'execute');
