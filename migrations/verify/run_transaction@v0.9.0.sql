-- Verify queen:run_transaction on pg
SELECT has_function_privilege('queen.run_transaction(jsonb, text, text, timestamptz)', 'execute');
