-- Revert queen:owners from pg
-- Back to the owner a pre-release deploy leaves: the user who deploys (here, who reverts).
BEGIN;

REVOKE SELECT ON ALL TABLES IN SCHEMA queen FROM queen_admin;
ALTER DOMAIN queen.name_text OWNER TO CURRENT_USER;
ALTER DOMAIN queen.tenant_text OWNER TO CURRENT_USER;
ALTER TABLE queen.broker_stats_minutes OWNER TO CURRENT_USER;
ALTER TABLE queen.consumer_groups OWNER TO CURRENT_USER;
ALTER TABLE queen.consumers OWNER TO CURRENT_USER;
ALTER TABLE queen.dedup_tombstones OWNER TO CURRENT_USER;
ALTER TABLE queen.dlq OWNER TO CURRENT_USER;
ALTER TABLE queen.dlq_payloads OWNER TO CURRENT_USER;
ALTER TABLE queen.job_runs OWNER TO CURRENT_USER;
ALTER TABLE queen.kv OWNER TO CURRENT_USER;
ALTER TABLE queen.message_traces OWNER TO CURRENT_USER;
ALTER TABLE queen.messages OWNER TO CURRENT_USER;
ALTER TABLE queen.partitions OWNER TO CURRENT_USER;
ALTER TABLE queen.queue_stats OWNER TO CURRENT_USER;
ALTER TABLE queen.queue_stats_minutes OWNER TO CURRENT_USER;
ALTER TABLE queen.queues OWNER TO CURRENT_USER;
ALTER TABLE queen.subscriptions OWNER TO CURRENT_USER;
ALTER TABLE queen.system_state OWNER TO CURRENT_USER;
ALTER TABLE queen.tenant_quotas OWNER TO CURRENT_USER;
ALTER TABLE queen.tenant_usage OWNER TO CURRENT_USER;
ALTER TABLE queen.timers OWNER TO CURRENT_USER;
ALTER TYPE queen.push_item_route OWNER TO CURRENT_USER;
ALTER TYPE queen.push_result OWNER TO CURRENT_USER;
ALTER TYPE queen.push_target OWNER TO CURRENT_USER;
ALTER TYPE queen.schedule_item OWNER TO CURRENT_USER;
ALTER SCHEMA queen OWNER TO CURRENT_USER;

COMMIT;
