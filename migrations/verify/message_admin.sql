-- Verify queen:message_admin on pg (release 2.0.0)
-- The signatures both 1.1.0's program and the log engine's have (this instance deploys nothing).
SELECT has_function_privilege('queen.list_messages(text, text, text, text, text, timestamptz, timestamptz, int, int, text)', 'execute');
SELECT has_function_privilege('queen.get_message(uuid, text, text)', 'execute');
SELECT has_function_privilege('queen.delete_message(uuid, text, text)', 'execute');
SELECT has_function_privilege('queen.clear_queue(text, text, text)', 'execute');
SELECT has_function_privilege('queen.list_partitions(text, int, int, text)', 'execute');
SELECT has_function_privilege('queen.dead_letter_message(uuid, text, text, text, text)', 'execute');
