-- Deploy queen:owners to pg
-- Release 1.0.0: every object of the pre-release schema is handed to queen_owner, the identity the SECURITY
-- DEFINER procedures run as (docs/procedures.md, Roles), and DBAs (queen_admin) read every table. Tables
-- created later by queen_owner get that SELECT by default privilege (internal_schema). No row is touched.
BEGIN;

ALTER SCHEMA queen OWNER TO queen_owner;
ALTER DOMAIN queen.name_text OWNER TO queen_owner;
ALTER DOMAIN queen.tenant_text OWNER TO queen_owner;
ALTER TABLE queen.broker_stats_minutes OWNER TO queen_owner;
ALTER TABLE queen.consumer_groups OWNER TO queen_owner;
ALTER TABLE queen.consumers OWNER TO queen_owner;
ALTER TABLE queen.dedup_tombstones OWNER TO queen_owner;
ALTER TABLE queen.dlq OWNER TO queen_owner;
ALTER TABLE queen.dlq_payloads OWNER TO queen_owner;
ALTER TABLE queen.job_runs OWNER TO queen_owner;
ALTER TABLE queen.kv OWNER TO queen_owner;
ALTER TABLE queen.message_traces OWNER TO queen_owner;
ALTER TABLE queen.messages OWNER TO queen_owner;
ALTER TABLE queen.partitions OWNER TO queen_owner;
ALTER TABLE queen.queue_stats OWNER TO queen_owner;
ALTER TABLE queen.queue_stats_minutes OWNER TO queen_owner;
ALTER TABLE queen.queues OWNER TO queen_owner;
ALTER TABLE queen.subscriptions OWNER TO queen_owner;
ALTER TABLE queen.system_state OWNER TO queen_owner;
ALTER TABLE queen.tenant_quotas OWNER TO queen_owner;
ALTER TABLE queen.tenant_usage OWNER TO queen_owner;
ALTER TABLE queen.timers OWNER TO queen_owner;
ALTER TYPE queen.push_item_route OWNER TO queen_owner;
ALTER TYPE queen.push_result OWNER TO queen_owner;
ALTER TYPE queen.push_target OWNER TO queen_owner;
ALTER TYPE queen.schedule_item OWNER TO queen_owner;
GRANT SELECT ON ALL TABLES IN SCHEMA queen TO queen_admin;

COMMIT;
