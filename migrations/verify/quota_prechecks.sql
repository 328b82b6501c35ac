-- Verify queen:quota_prechecks on pg
BEGIN;
SELECT 1 / (count(*) = 5)::int FROM pg_trigger
 WHERE tgname IN ('kv_usage_precheck', 'message_traces_usage_precheck', 'queues_usage_precheck',
                  'partitions_usage_precheck', 'consumer_groups_usage_precheck')
   AND tgfoid = 'queen_internal.check_growth_first()'::regprocedure;
SELECT 1 / (NOT has_function_privilege('public', 'queen_internal.check_growth_first()', 'execute'))::int;
ROLLBACK;
