-- pgTAP: the grant matrix (docs/procedures.md, Roles). Every API procedure of schema queen is named here with
-- who may execute it, so a procedure added without a decision fails the first test; its file (sql/queen) grants
-- the same, and the tests below hold the two to each other.
-- Flags: B = queen_broker, R = queen_reader, A = queen_admin ('-' = not granted). PUBLIC executes nothing.
BEGIN;
CREATE EXTENSION IF NOT EXISTS pgtap;
SELECT plan(27);

CREATE TEMP TABLE expected (fn text PRIMARY KEY, flags text NOT NULL CHECK (flags ~ '^[B-][R-][A-]$'));
INSERT INTO expected VALUES
  ('queen.ack_many', 'B-A'), ('queen.ack_messages', 'B-A'), ('queen.analytics_dead_letter_errors', 'BRA'), ('queen.analytics_parked_replicas', 'BRA'),
  ('queen.analytics_postgres_stats', 'BRA'), ('queen.analytics_queue_lag', 'BRA'), ('queen.analytics_queue_ops', 'BRA'),
  ('queen.analytics_retention', 'BRA'), ('queen.analytics_system_metrics', 'BRA'), ('queen.analytics_worker_metrics', 'BRA'),
  ('queen.analyze_grown_tables', 'B-A'), ('queen.apply_retention', 'B-A'), ('queen.claim_due_timers', 'B-A'), ('queen.clear_queue', 'B-A'),
  ('queen.configure_queue', 'B-A'), ('queen.consumer_group_detail', 'BRA'), ('queen.dead_letter_message', 'B-A'),
  ('queen.dead_letter_undecryptable', 'B-A'), ('queen.dedup_keys', 'B-A'), ('queen.delete_consumer_group', 'B-A'),
  ('queen.delete_dead_letters', 'B-A'),
  ('queen.delete_message', 'B-A'), ('queen.delete_queue', 'B-A'), ('queen.encrypted_queue_names', 'BRA'),
  ('queen.expire_messages', 'B-A'), ('queen.extend_lease', 'B-A'), ('queen.finish_job_cycle', 'B-A'),
  ('queen.fire_timers', 'B-A'), ('queen.get_message', 'BRA'), ('queen.get_system_flag', 'BRA'),
  ('queen.kv_delete', 'B-A'), ('queen.kv_get', 'BRA'), ('queen.kv_prune_expired', 'B-A'),
  ('queen.kv_set', 'B-A'), ('queen.lagging_consumer_groups', 'BRA'), ('queen.list_consumer_groups', 'BRA'),
  ('queen.list_dlq', 'BRA'), ('queen.list_messages', 'BRA'), ('queen.list_partitions', 'BRA'),
  ('queen.message_traces_of', 'BRA'), ('queen.metrics_snapshot', 'BRA'), ('queen.next_timer_due', 'BRA'), ('queen.pop_many', 'B-A'),
  ('queen.pop_messages', 'B-A'), ('queen.prune_stats_history', 'B-A'), ('queen.push_messages', 'B-A'), ('queen.push_with_dedup', 'B-A'),
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
-- The helpers, whatever their number: their owner only (they run inside a SECURITY DEFINER procedure of schema
-- queen). Each is a file of sql/queen_internal; tests/schema proves the files are the functions.
INSERT INTO expected
SELECT 'queen_internal.' || p.proname, '---'
  FROM pg_proc p WHERE p.pronamespace = 'queen_internal'::regnamespace;

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
SELECT throws_ok($$SELECT count(*) FROM queen.stored_messages$$, '42501', NULL, 'queen_broker cannot read a table');
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
