-- Verify queen:ack_many on pg
SELECT has_function_privilege('queen.ack_many(jsonb, text, timestamptz)', 'execute');
SELECT has_function_privilege('queen.ack_lease_group(jsonb, text)', 'execute');
