-- Verify queen:consumer_group_admin on pg
SELECT has_function_privilege('queen.list_consumer_groups(text, timestamptz)', 'execute');
SELECT has_function_privilege('queen.lagging_consumer_groups(bigint, text, timestamptz)', 'execute');
SELECT has_function_privilege('queen.consumer_group_detail(text, text, timestamptz)', 'execute');
SELECT has_function_privilege('queen.delete_consumer_group(text, text, bool, text)', 'execute');
SELECT has_function_privilege('queen.set_subscription_start(text, timestamptz, text)', 'execute');
SELECT has_function_privilege('queen.seek_consumer_group(text, text, bool, timestamptz, text)', 'execute');
SELECT has_function_privilege('queen.seek_partition_to_end(text, text, text, text)', 'execute');
