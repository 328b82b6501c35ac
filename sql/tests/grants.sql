-- pgTAP: the grant matrix (docs/procedures.md, Roles). Every function of schemas queen and queen_internal
-- is named here with who may execute it, so a function added without a decision fails the first test.
-- Flags: B = queen_broker, R = queen_reader, A = queen_admin ('-' = not granted). PUBLIC executes nothing.
BEGIN;
CREATE EXTENSION IF NOT EXISTS pgtap;
SELECT plan(27);

CREATE TEMP TABLE expected (fn text PRIMARY KEY, flags text NOT NULL CHECK (flags ~ '^[B-][R-][A-]$'));
INSERT INTO expected VALUES
  ('queen.ack_many', 'B-A'), ('queen.ack_messages', 'B-A'), ('queen.analytics_parked_replicas', 'BRA'),
  ('queen.analytics_postgres_stats', 'BRA'), ('queen.analytics_queue_lag', 'BRA'), ('queen.analytics_queue_ops', 'BRA'),
  ('queen.analytics_retention', 'BRA'), ('queen.analytics_system_metrics', 'BRA'), ('queen.analytics_worker_metrics', 'BRA'),
  ('queen.analyze_grown_tables', 'B-A'), ('queen.apply_retention', 'B-A'), ('queen.claim_due_timers', 'B-A'), ('queen.clear_queue', 'B-A'),
  ('queen.configure_queue', 'B-A'), ('queen.consumer_group_detail', 'BRA'), ('queen.dead_letter_message', 'B-A'),
  ('queen.dead_letter_undecryptable', 'B-A'), ('queen.delete_consumer_group', 'B-A'), ('queen.delete_dead_letters', 'B-A'),
  ('queen.delete_message', 'B-A'), ('queen.delete_queue', 'B-A'), ('queen.encrypted_queue_names', 'BRA'),
  ('queen.expire_messages', 'B-A'), ('queen.extend_lease', 'B-A'), ('queen.finish_job_cycle', 'B-A'),
  ('queen.fire_timers', 'B-A'), ('queen.get_message', 'BRA'), ('queen.get_system_flag', 'BRA'),
  ('queen.kv_delete', 'B-A'), ('queen.kv_get', 'BRA'), ('queen.kv_prune_expired', 'B-A'),
  ('queen.kv_set', 'B-A'), ('queen.lagging_consumer_groups', 'BRA'), ('queen.list_consumer_groups', 'BRA'),
  ('queen.list_dlq', 'BRA'), ('queen.list_messages', 'BRA'), ('queen.list_partitions', 'BRA'),
  ('queen.message_traces_of', 'BRA'), ('queen.metrics_snapshot', 'BRA'), ('queen.next_timer_due', 'BRA'), ('queen.pop_many', 'B-A'),
  ('queen.pop_messages', 'B-A'), ('queen.prune_stats_history', 'B-A'), ('queen.push_messages', 'B-A'),
  ('queen.reconcile_stats', 'B-A'), ('queen.record_broker_minute', 'B-A'), ('queen.record_trace', 'B-A'),
  ('queen.refresh_stats', 'B-A'), ('queen.requeue_dead_letters', 'B-A'), ('queen.resources_namespaces', 'BRA'),
  ('queen.resources_overview', 'BRA'), ('queen.resources_queue', 'BRA'), ('queen.resources_queues', 'BRA'),
  ('queen.resources_tasks', 'BRA'), ('queen.retry_dead_message', 'B-A'), ('queen.run_transaction', 'B-A'),
  ('queen.schema_version', 'BRA'), ('queen.seek_consumer_group', 'B-A'), ('queen.seek_partition_to_end', 'B-A'),
  ('queen.set_subscription_start', 'B-A'), ('queen.set_system_flag', 'B-A'), ('queen.set_tenant_quota', '--A'),
  ('queen.status_analytics', 'BRA'), ('queen.status_overview', 'BRA'), ('queen.status_queue', 'BRA'),
  ('queen.status_queue_messages', 'BRA'), ('queen.status_queues', 'BRA'), ('queen.stream_cycle', 'B-A'),
  ('queen.stream_register_query', 'B-A'), ('queen.stream_state_get', 'BRA'), ('queen.stream_usage_of', '-RA'), ('queen.tenant_quota_state', 'BRA'),
  ('queen.tenant_usage_of', '-RA'), ('queen.timer_queue_names', 'BRA'), ('queen.trace_names', 'BRA'),
  ('queen.traces_by_name', 'BRA'), ('queen.try_begin_job_cycle', 'B-A');
-- The helpers: their owner only (they run inside a SECURITY DEFINER procedure of schema queen).
INSERT INTO expected SELECT f, '---' FROM unnest(ARRAY[
  'queen_internal.add_stream_usage', 'queen_internal.apply_stream_state_ops', 'queen_internal.check_stream_limit',
  'queen_internal.stream_ack', 'queen_internal.stream_final_ops', 'queen_internal.stream_key_retention',
  'queen_internal.stream_limit', 'queen_internal.stream_query_give_back', 'queen_internal.stream_query_of',
  'queen_internal.ack_item_action', 'queen_internal.ack_item_error', 'queen_internal.apply_acks',
  'queen_internal.ack_item_rows', 'queen_internal.ack_lease_group', 'queen_internal.add_partition_cursors',
  'queen_internal.add_tenant_usage', 'queen_internal.analytics_per_queue', 'queen_internal.check_ack_items',
  'queen_internal.check_at_least', 'queen_internal.check_push_items', 'queen_internal.check_schedule_items',
  'queen_internal.check_growth_first', 'queen_internal.check_system_flag_key', 'queen_internal.check_tenant_quota', 'queen_internal.compute_queue_stats',
  'queen_internal.count_growth', 'queen_internal.create_cursors', 'queen_internal.create_push_targets',
  'queen_internal.cursor_is_free', 'queen_internal.cursor_lags', 'queen_internal.dead_letter',
  'queen_internal.delete_partition_head', 'queen_internal.dlq_admin_max_per_call',
  'queen_internal.dlq_forget_payloads', 'queen_internal.dlq_matching', 'queen_internal.ensure_consumer',
  'queen_internal.expiry_cutoffs', 'queen_internal.expiry_rule', 'queen_internal.fire_locked_timers', 'queen_internal.insert_new_timers',
  'queen_internal.insert_push_items', 'queen_internal.iso_millis', 'queen_internal.job_cycle',
  'queen_internal.job_lock_key', 'queen_internal.job_runs_kept', 'queen_internal.kv_check_key',
  'queen_internal.kv_give_back', 'queen_internal.kv_is_live', 'queen_internal.lag_seconds',
  'queen_internal.list_max_payload_bytes', 'queen_internal.lock_ack_cursor', 'queen_internal.lock_group_queues',
  'queen_internal.lock_push_targets', 'queen_internal.message_delivery', 'queen_internal.message_group_state',
  'queen_internal.move_cursors', 'queen_internal.name_max_chars', 'queen_internal.name_problem',
  'queen_internal.option_bool', 'queen_internal.option_int', 'queen_internal.parse_schedule_items',
  'queen_internal.partition_seq_at', 'queen_internal.partitions_mode', 'queen_internal.pop_candidates',
  'queen_internal.pop_claim_partitions',
  'queen_internal.pop_record_start_point', 'queen_internal.push_item_deliver_at',
  'queen_internal.push_item_partition', 'queen_internal.queue_child_give_back', 'queen_internal.queue_give_back',
  'queen_internal.queue_namespace_of', 'queen_internal.queue_options_json', 'queen_internal.queue_pending_count',
  'queen_internal.queue_task_of', 'queen_internal.refused_push_partitions', 'queen_internal.register_consumer_group',
  'queen_internal.release_ack_batch',
  'queen_internal.requested_subscription', 'queen_internal.requeued_transaction_id',
  'queen_internal.resources_groups', 'queen_internal.schedule_messages', 'queen_internal.select_dead_letters',
  'queen_internal.set_counted_bytes', 'queen_internal.settle_drained', 'queen_internal.start_cursor',
  'queen_internal.stats_age_seconds', 'queen_internal.stats_bucket', 'queen_internal.stats_bucket_minutes',
  'queen_internal.stats_counters', 'queen_internal.stats_partitions', 'queen_internal.stats_queues',
  'queen_internal.stats_series', 'queen_internal.statistics_outgrown', 'queen_internal.stats_time_range', 'queen_internal.stats_work_lock_key',
  'queen_internal.stats_workers', 'queen_internal.storage_quota_names', 'queen_internal.store_ack_state',
  'queen_internal.store_messages', 'queen_internal.subscription_start_at', 'queen_internal.tenant_arg',
  'queen_internal.tenant_quota_limit', 'queen_internal.tenant_usage_stripes', 'queen_internal.trace_give_back',
  'queen_internal.trace_max_data_bytes', 'queen_internal.trace_max_names', 'queen_internal.transaction_ack',
  'queen_internal.uuid_or_null', 'queen_internal.uuid_v7', 'queen_internal.uuid_v7_ordinal'
]) AS f;

CREATE TEMP VIEW actual AS
SELECT n.nspname || '.' || p.proname AS fn, p.oid, p.proowner, p.prosecdef, p.proconfig, p.provolatile,
       coalesce(p.proacl, acldefault('f', p.proowner)) AS acl
  FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
 WHERE n.nspname IN ('queen', 'queen_internal');

-- One decision per function.
SELECT set_eq('SELECT fn FROM actual', 'SELECT fn FROM expected',
              'every function of queen and queen_internal has a row in the grant matrix, and every row a function');
SELECT is_empty($$SELECT fn FROM actual GROUP BY fn HAVING count(*) > 1$$,
                'no function is overloaded (grants name functions without their arguments)');
SELECT is_empty($$SELECT fn FROM expected WHERE fn LIKE 'queen_internal.%' AND flags <> '---'$$,
                'no role executes a helper of queen_internal');

-- The matrix, role by role, as PostgreSQL decides it (membership included).
SELECT set_eq($$SELECT fn FROM actual WHERE has_function_privilege('queen_broker', oid, 'EXECUTE')$$,
              $$SELECT fn FROM expected WHERE substr(flags, 1, 1) = 'B'$$, 'queen_broker executes exactly its column');
SELECT set_eq($$SELECT fn FROM actual WHERE has_function_privilege('queen_reader', oid, 'EXECUTE')$$,
              $$SELECT fn FROM expected WHERE substr(flags, 2, 1) = 'R'$$, 'queen_reader executes exactly its column');
SELECT set_eq($$SELECT fn FROM actual WHERE has_function_privilege('queen_admin', oid, 'EXECUTE')$$,
              $$SELECT fn FROM expected WHERE substr(flags, 3, 1) = 'A'$$, 'queen_admin executes exactly its column');
SELECT is_empty($$SELECT fn FROM actual, aclexplode(acl) a WHERE a.grantee = 0$$, 'PUBLIC executes no function');
SELECT is_empty($$SELECT fn FROM actual, aclexplode(acl) a
                   WHERE a.grantee NOT IN (proowner, 'queen_broker'::regrole, 'queen_reader'::regrole,
                                           'queen_admin'::regrole)$$,
                'no other role holds EXECUTE on a function');
SELECT is_empty($$SELECT fn FROM actual JOIN expected USING (fn) WHERE substr(flags, 2, 1) = 'R' AND provolatile = 'v'$$,
                'queen_reader executes only procedures that change nothing (STABLE or IMMUTABLE)');

-- Who runs as whom: every procedure callable from outside is SECURITY DEFINER with the fixed search_path,
-- owned by queen_owner; the helpers run inside them (same identity, same search_path).
SELECT is_empty($$SELECT fn FROM actual WHERE fn LIKE 'queen.%'
                   AND NOT (prosecdef AND 'search_path=pg_catalog, queen, queen_internal, pg_temp' = ANY (proconfig))$$,
                'every procedure of queen is SECURITY DEFINER with search_path pg_catalog, queen, queen_internal, pg_temp');
SELECT is_empty($$SELECT fn FROM actual JOIN expected USING (fn) WHERE flags <> '---' AND fn NOT LIKE 'queen.%'$$,
                'every function a role executes is in schema queen (hence SECURITY DEFINER, above)');
SELECT is_empty($$SELECT fn FROM actual WHERE proowner <> 'queen_owner'::regrole$$, 'queen_owner owns every function');
SELECT is_empty($$SELECT n.nspname || '.' || c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
                   WHERE n.nspname IN ('queen', 'queen_internal') AND c.relowner <> 'queen_owner'::regrole$$,
                'queen_owner owns every table, index, sequence and composite type');
SELECT is_empty($$SELECT n.nspname || '.' || t.typname FROM pg_type t JOIN pg_namespace n ON n.oid = t.typnamespace
                   WHERE n.nspname IN ('queen', 'queen_internal') AND t.typowner <> 'queen_owner'::regrole$$,
                'queen_owner owns every type and domain');
SELECT is_empty($$SELECT nspname FROM pg_namespace WHERE nspname IN ('queen', 'queen_internal')
                   AND nspowner <> 'queen_owner'::regrole$$, 'queen_owner owns both schemas');

-- Tables: brokers and readers reach them only through the procedures; DBAs read them.
SELECT is_empty($$SELECT r.rolname || ' ' || c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace,
                          pg_roles r
                   WHERE n.nspname IN ('queen', 'queen_internal') AND c.relkind IN ('r', 'p', 'S', 'v', 'm')
                     AND r.rolname IN ('queen_broker', 'queen_reader')
                     AND (has_table_privilege(r.oid, c.oid, 'SELECT, INSERT, UPDATE, DELETE, TRUNCATE, REFERENCES, TRIGGER')
                          OR (c.relkind = 'S' AND has_sequence_privilege(r.oid, c.oid, 'USAGE, SELECT, UPDATE')))$$,
                'queen_broker and queen_reader hold no privilege on any table or sequence');
SELECT is_empty($$SELECT c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
                   WHERE n.nspname = 'queen' AND c.relkind IN ('r', 'p')
                     AND (NOT has_table_privilege('queen_admin', c.oid, 'SELECT')
                          OR has_table_privilege('queen_admin', c.oid, 'INSERT, UPDATE, DELETE, TRUNCATE'))$$,
                'queen_admin reads every table and writes none (writes go through the procedures)');
SELECT is_empty($$SELECT r FROM unnest(ARRAY['queen_broker', 'queen_reader', 'queen_admin']) r
                   WHERE has_schema_privilege(r, 'queen_internal', 'USAGE')
                      OR has_schema_privilege(r, 'queen_internal', 'CREATE')
                      OR has_schema_privilege(r, 'queen', 'CREATE')
                      OR NOT has_schema_privilege(r, 'queen', 'USAGE')$$,
                'the three roles use schema queen, create nothing, and cannot see into queen_internal');

-- The roles themselves.
SELECT is((SELECT array_agg(rolname || ':' || rolcanlogin ORDER BY rolname) FROM pg_roles
            WHERE rolname IN ('queen_owner', 'queen_broker', 'queen_reader', 'queen_admin')),
          ARRAY['queen_admin:false', 'queen_broker:true', 'queen_owner:false', 'queen_reader:false'],
          'queen_broker logs in; queen_owner, queen_reader and queen_admin are granted to logins, never log in');
SELECT is_empty($$SELECT rolname FROM pg_roles WHERE rolname IN ('queen_owner', 'queen_broker', 'queen_reader', 'queen_admin')
                   AND (rolsuper OR rolcreaterole OR rolcreatedb OR rolreplication OR rolbypassrls)$$,
                'none of the four roles is a superuser or holds a cluster privilege');
SELECT ok(pg_has_role('queen_owner', 'pg_read_all_stats', 'MEMBER'),
          'queen_owner reads pg_stat_activity of every session (analytics_postgres_stats)');
SELECT is_empty($$SELECT r FROM unnest(ARRAY['queen_broker', 'queen_reader', 'queen_admin']) r
                   WHERE pg_has_role(r, 'queen_owner', 'MEMBER')$$, 'no role of the API is a member of queen_owner');

-- What it means at run time.
SET LOCAL ROLE queen_broker;
SELECT lives_ok($$SELECT * FROM queen.push_messages('[{"queue": "grants-q", "payload": {"n": 1}}]', NULL, '')$$,
                'queen_broker pushes through queen.push_messages (SECURITY DEFINER reaches the tables)');
SELECT throws_ok($$SELECT count(*) FROM queen.messages$$, '42501', NULL, 'queen_broker cannot read a table');
SELECT throws_ok($$SELECT * FROM queen_internal.store_messages('[]', NULL, NULL, '')$$, '42501', NULL,
                 'queen_broker cannot call store_messages, which trusts its items');
RESET ROLE;
SET LOCAL ROLE queen_reader;
SELECT lives_ok($$SELECT queen.resources_overview('', '{}')$$, 'queen_reader reads the statistics');
SELECT throws_ok($$SELECT * FROM queen.push_messages('[{"queue": "grants-q", "payload": {}}]', NULL, '')$$, '42501', NULL,
                 'queen_reader cannot push');
RESET ROLE;

SELECT * FROM finish();
ROLLBACK;
