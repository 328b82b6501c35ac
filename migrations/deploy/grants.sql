-- Deploy queen:grants to pg
-- Who may call which API procedure (docs/procedures.md, Roles). Functions are not executable by PUBLIC
-- (internal_schema); sql/tests/grants.sql holds the whole matrix, so a function added without a decision
-- here fails it. A later change that adds or re-creates a procedure grants it in that change.
BEGIN;

GRANT USAGE ON SCHEMA queen TO queen_broker, queen_reader, queen_admin;

-- queen_broker: exactly the procedures the broker calls (QUEEN_CATALOGUE in src/db/catalogue.h;
-- tests/integration/test_catalogue.py checks the two agree).
GRANT EXECUTE ON FUNCTION
  -- the request path
  queen.configure_queue, queen.push_messages, queen.pop_messages, queen.ack_messages, queen.pop_many,
  queen.ack_many, queen.extend_lease, queen.set_system_flag, queen.get_system_flag, queen.schema_version,
  queen.run_transaction, queen.list_dlq, queen.delete_queue, queen.tenant_quota_state,
  queen.encrypted_queue_names, queen.dead_letter_undecryptable,
  -- timers, KV, jobs, statistics writers
  queen.claim_due_timers, queen.fire_timers, queen.next_timer_due, queen.timer_queue_names,
  queen.kv_set, queen.kv_get, queen.kv_delete, queen.kv_prune_expired,
  queen.try_begin_job_cycle, queen.finish_job_cycle, queen.apply_retention, queen.expire_messages,
  queen.reconcile_stats, queen.prune_stats_history, queen.refresh_stats, queen.record_broker_minute,
  -- consumer-group, message, trace and DLQ administration
  queen.list_consumer_groups, queen.lagging_consumer_groups, queen.consumer_group_detail,
  queen.delete_consumer_group, queen.set_subscription_start, queen.seek_consumer_group,
  queen.seek_partition_to_end, queen.record_trace, queen.message_traces_of, queen.traces_by_name,
  queen.trace_names, queen.list_messages, queen.get_message, queen.delete_message, queen.clear_queue,
  queen.list_partitions, queen.dead_letter_message, queen.requeue_dead_letters, queen.delete_dead_letters,
  queen.retry_dead_message,
  -- the statistics views (QUEEN_CATALOGUE_VIEWS)
  queen.resources_overview, queen.resources_queues, queen.resources_queue, queen.resources_namespaces,
  queen.resources_tasks, queen.status_overview, queen.status_queues, queen.status_queue,
  queen.status_queue_messages, queen.status_analytics, queen.analytics_system_metrics,
  queen.analytics_worker_metrics, queen.analytics_postgres_stats, queen.analytics_queue_lag,
  queen.analytics_queue_ops, queen.analytics_parked_replicas, queen.analytics_retention
TO queen_broker;

-- queen_reader: the API procedures that change nothing, i.e. every STABLE or IMMUTABLE one (PostgreSQL
-- itself refuses a write in those). The rule, applied once here; sql/tests/grants.sql names each of them.
DO $$
DECLARE
  v_fn regprocedure;
BEGIN
  FOR v_fn IN SELECT p.oid FROM pg_proc p WHERE p.pronamespace = 'queen'::regnamespace AND p.provolatile <> 'v' LOOP
    EXECUTE format('GRANT EXECUTE ON FUNCTION %s TO queen_reader', v_fn);
  END LOOP;
END;
$$;

-- queen_admin: every API procedure, the broker's and the DBA's own (set_tenant_quota, tenant_usage_of).
GRANT EXECUTE ON ALL FUNCTIONS IN SCHEMA queen TO queen_admin;

COMMIT;
