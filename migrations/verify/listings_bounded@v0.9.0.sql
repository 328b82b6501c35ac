-- Verify queen:listings_bounded on pg
SELECT has_function_privilege('queen.partition_seq_at(uuid, bigint, timestamptz)', 'execute');
SELECT has_function_privilege('queen.traces_by_name(text, int, int, text, bigint)', 'execute');
SELECT has_function_privilege('queen.list_messages(text, text, text, text, text, timestamptz, timestamptz, int, int, text)', 'execute');
