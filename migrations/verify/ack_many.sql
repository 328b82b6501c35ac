-- Verify queen:ack_many on pg
SELECT has_function_privilege('queen.ack_many(jsonb, text, timestamptz)', 'execute');
