-- pgTAP: the hot-path procedures never read a growing table by sequential scan, even when their plans are
-- made while the tables are tiny and freshly analyzed (a new deployment: autovacuum analyzes the first few
-- rows, and the broker's pooled connections keep the generic plans they make then). A sequential scan
-- planned at that moment is kept as the tables grow and makes every call cost as much as the table is big.
BEGIN;
CREATE EXTENSION IF NOT EXISTS pgtap;
SELECT plan(8);

CREATE TEMP TABLE growing (rel regclass PRIMARY KEY);
INSERT INTO growing VALUES ('queen.queues'), ('queen.partitions'), ('queen.messages'), ('queen.consumers'),
                           ('queen.dedup_tombstones'), ('queen.dlq');

-- Sequential scans of the growing tables so far in this transaction, as "table=count" for readable failures.
CREATE FUNCTION pg_temp.seq_scans() RETURNS text[] LANGUAGE sql AS $$
  SELECT array_agg(g.rel::text || '=' || pg_stat_get_xact_numscans(g.rel) ORDER BY g.rel::text) FROM growing g
$$;

-- A queue with a few messages and a consumer cursor, then statistics of that tiny state.
SELECT * FROM queen.push_messages($$[{"queue": "t_plan", "partition": "p1", "payload": {"n": 1}},
                                     {"queue": "t_plan", "partition": "p2", "payload": {"n": 2}}]$$, NULL, '');
SELECT * FROM queen.pop_messages('t_plan', NULL, 'g_plan', 1, 1, true, NULL, NULL, NULL, NULL, '');
ANALYZE queen.queues, queen.partitions, queen.messages, queen.consumers, queen.dedup_tombstones, queen.dlq;

CREATE TEMP TABLE before_push AS SELECT pg_temp.seq_scans() AS scans;
SELECT * FROM queen.push_messages($$[{"queue": "t_plan", "partition": "p1", "payload": {"n": 3}, "transactionId": "t-3"},
                                     {"queue": "t_plan", "partition": "p1", "payload": {"n": 4}, "transactionId": "t-3"},
                                     {"queue": "t_plan", "partition": "p2", "payload": {"n": 5}}]$$, NULL, '');
SELECT is(pg_temp.seq_scans(), (SELECT scans FROM before_push), 'push: no sequential scan of a growing table');

CREATE TEMP TABLE before_pop AS SELECT pg_temp.seq_scans() AS scans;
CREATE TEMP TABLE popped AS
  SELECT * FROM queen.pop_messages('t_plan', NULL, 'g_plan', 2, 2, false, NULL, NULL, NULL, NULL, '');
SELECT is(pg_temp.seq_scans(), (SELECT scans FROM before_pop), 'pop: no sequential scan of a growing table');
SELECT ok((SELECT count(*) FROM popped) > 0, 'the pop delivered messages, so it read them');

CREATE TEMP TABLE before_ack AS SELECT pg_temp.seq_scans() AS scans;
SELECT * FROM queen.ack_messages(
  (SELECT jsonb_agg(jsonb_build_object('transactionId', transaction_id, 'partitionId', partition_id,
                                       'leaseId', lease_id, 'status', 'completed'))
     FROM popped), 'g_plan', '', NULL);
SELECT is(pg_temp.seq_scans(), (SELECT scans FROM before_ack), 'ack: no sequential scan of a growing table');

-- An ack that names no group finds it by its lease: through the lease index, never by a scan of pop's work-list
-- index (its last column is partition_id), whose entries grow with every cursor update.
CREATE TEMP TABLE leased AS
  SELECT * FROM queen.pop_messages('t_plan', NULL, NULL, 1, 1, false, NULL, NULL, NULL, NULL, '');
CREATE FUNCTION pg_temp.index_scans(p_index regclass) RETURNS bigint LANGUAGE sql AS $$
  SELECT pg_stat_get_xact_numscans(p_index)
$$;
CREATE TEMP TABLE before_groupless_ack AS
  SELECT pg_temp.index_scans('queen.consumers_queue_group_pending_idx') AS work_list,
         pg_temp.index_scans('queen.consumers_lease_id_idx') AS lease,
         pg_temp.index_scans('queen.partitions_queue_name_key') AS partitions_by_name;
SELECT * FROM queen.ack_messages(
  (SELECT jsonb_agg(jsonb_build_object('transactionId', transaction_id, 'partitionId', partition_id,
                                       'leaseId', lease_id, 'status', 'completed'))
     FROM leased), NULL, '', NULL);
SELECT is(pg_temp.index_scans('queen.consumers_queue_group_pending_idx') - (SELECT work_list FROM before_groupless_ack),
          0::bigint, 'an ack without a group does not scan the work-list index');
SELECT ok(pg_temp.index_scans('queen.consumers_lease_id_idx') > (SELECT lease FROM before_groupless_ack),
          'an ack without a group finds its lease through the lease index');
SELECT is(pg_temp.index_scans('queen.partitions_queue_name_key') - (SELECT partitions_by_name FROM before_groupless_ack),
          0::bigint, 'an ack without a group does not walk the partitions to find its lease');

-- JIT code is compiled on every execution of a plan: procedures whose estimates grow with the tables carry jit=off.
SELECT is(ARRAY(SELECT p.proname::text FROM pg_proc p
                 WHERE p.pronamespace::regnamespace::text IN ('queen', 'queen_internal')
                   AND p.proname IN ('push_messages', 'store_messages', 'pop_messages', 'pop_many', 'ack_messages',
                                     'ack_many', 'reconcile_stats', 'compute_queue_stats', 'expire_messages',
                                     'apply_retention')
                   AND 'jit=off' = ANY (p.proconfig)
                 ORDER BY 1),
          ARRAY['ack_many', 'ack_messages', 'apply_retention', 'compute_queue_stats', 'expire_messages', 'pop_many',
                'pop_messages', 'push_messages', 'reconcile_stats', 'store_messages'],
          'the hot and the sweeping procedures run without JIT');

SELECT * FROM finish();
ROLLBACK;
