-- Revert queen:quota_prechecks from pg
BEGIN;
DROP TRIGGER kv_usage_precheck ON queen.kv;
DROP TRIGGER message_traces_usage_precheck ON queen.message_traces;
DROP TRIGGER queues_usage_precheck ON queen.queues;
DROP TRIGGER partitions_usage_precheck ON queen.partitions;
DROP TRIGGER consumer_groups_usage_precheck ON queen.consumer_groups;
SET LOCAL ROLE queen_owner;
DROP FUNCTION queen_internal.check_growth_first();
COMMIT;
