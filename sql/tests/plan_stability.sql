-- pgTAP: the hot-path procedures never read a growing table by sequential scan, even when their plans are
-- made while the tables are tiny and freshly analyzed (a new deployment: autovacuum analyzes the first few
-- rows, and the broker's pooled connections keep the generic plans they make then). A sequential scan
-- planned at that moment is kept as the tables grow and makes every call cost as much as the table is big.
BEGIN;
CREATE EXTENSION IF NOT EXISTS pgtap;
SELECT plan(15);

CREATE TEMP TABLE growing (rel regclass PRIMARY KEY);
INSERT INTO growing VALUES ('queen.queues'), ('queen.partitions'), ('queen.segments'), ('queen.consumers'),
                           ('queen.dedup_tombstones'), ('queen.dlq');

-- Sequential scans of the growing tables so far in this transaction, as "table=count" for readable failures.
CREATE FUNCTION pg_temp.seq_scans() RETURNS text[] LANGUAGE sql AS $$
  SELECT array_agg(g.rel::text || '=' || pg_stat_get_xact_numscans(g.rel) ORDER BY g.rel::text) FROM growing g
$$;

-- A queue with a few messages and a consumer cursor, then statistics of that tiny state.
SELECT * FROM queen.push_messages($$[{"queue": "t_plan", "partition": "p1", "payload": {"n": 1}},
                                     {"queue": "t_plan", "partition": "p2", "payload": {"n": 2}}]$$, NULL, '');
SELECT * FROM queen.pop_messages('t_plan', NULL, 'g_plan', 1, 1, true, NULL, NULL, NULL, NULL, '');
ANALYZE queen.queues, queen.partitions, queen.segments, queen.consumers, queen.dedup_tombstones, queen.dlq;

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

-- Push's lookups stay probes of their keys when the plans were made while the tables looked empty (as after
-- most queues were deleted and the tables vacuumed): the partitions of a wide queue and the live tombstones
-- written after those plans were made are not read by a push that touches neither.
SELECT count(*) FROM queen.push_messages(
  (SELECT jsonb_agg(jsonb_build_object('queue', 't_plan_wide', 'partition', 'w' || i, 'payload', '{}'::jsonb))
     FROM generate_series(1, 200) i), NULL, '');
INSERT INTO queen.dedup_tombstones (partition_id, transaction_id, message_id, expires_at)
  SELECT p.id, 'gone-' || i, gen_random_uuid(), now() + interval '1 hour'
    FROM queen.partitions p CROSS JOIN generate_series(1, 100) i
   WHERE p.queue_id = (SELECT q.id FROM queen.queues q WHERE q.tenant = '' AND q.name = 't_plan_wide');
INSERT INTO queen.dedup_tombstones (partition_id, transaction_id, message_id, expires_at)
  SELECT p.id, 'expired-t', gen_random_uuid(), now() - interval '1 second'
    FROM queen.partitions p
   WHERE p.queue_id = (SELECT q.id FROM queen.queues q WHERE q.tenant = '' AND q.name = 't_plan') AND p.name = 'p1';
-- Index entries read from any index of a table so far in this transaction.
CREATE FUNCTION pg_temp.index_entries_read(p_table regclass) RETURNS bigint LANGUAGE sql AS $$
  SELECT sum(pg_stat_get_xact_tuples_returned(i.indexrelid))::bigint FROM pg_index i WHERE i.indrelid = p_table
$$;
CREATE TEMP TABLE before_narrow_push AS
  SELECT pg_temp.index_entries_read('queen.partitions') AS partition_entries,
         pg_temp.index_scans('queen.dedup_tombstones_expires_at_idx') AS tombstones_by_expiry;
CREATE TEMP TABLE narrow_push AS
  SELECT * FROM queen.push_messages($$[{"queue": "t_plan", "partition": "p1", "payload": {"n": 6}, "transactionId": "expired-t"},
                                       {"queue": "t_plan", "partition": "p2", "payload": {"n": 7}, "transactionId": "t-7"}]$$,
                                    NULL, '');
-- Per target its lookup by name, its lock and its last_seq update probe a key, some probes repeated by the
-- join around them (8-17 entries here, as the statistics vary); the plans made from the tiny statistics
-- hashed the whole table instead, 402 entries.
SELECT cmp_ok(pg_temp.index_entries_read('queen.partitions') - (SELECT partition_entries FROM before_narrow_push),
              '<=', 40::bigint, 'a push to two partitions probes their keys, it does not read every partition');
SELECT is(pg_temp.index_scans('queen.dedup_tombstones_expires_at_idx') - (SELECT tombstones_by_expiry FROM before_narrow_push),
          0::bigint, 'a push finds tombstones by their key, never by walking the live ones through expires_at');
SELECT is(ARRAY(SELECT status FROM narrow_push ORDER BY idx), ARRAY['queued', 'queued'],
          'an expired tombstone does not make its key a duplicate');
SELECT is((SELECT status FROM queen.push_messages(
             (SELECT jsonb_build_array(jsonb_build_object('queue', 't_plan_wide', 'partition', 'w7', 'payload', '{}'::jsonb,
                                                          'transactionId', 'gone-3'))), NULL, '')),
          'duplicate', 'a live tombstone still makes its key a duplicate');

-- Pop's and ack's lookups of the partitions they claimed stay probes of the key too: plans made while
-- queen.partitions held two rows hash-joined a full walk of its primary key (the wide queue's 200 partitions
-- here; at 100,000 partitions a pop cost 50-200 ms until something replanned it).
SELECT count(*) FROM queen.push_messages($$[{"queue": "t_plan", "partition": "p1", "payload": {"n": 8}},
                                            {"queue": "t_plan", "partition": "p2", "payload": {"n": 9}}]$$, NULL, '');
CREATE TEMP TABLE before_narrow_pop AS SELECT pg_temp.index_entries_read('queen.partitions') AS partition_entries;
CREATE TEMP TABLE narrow_pop AS
  SELECT * FROM queen.pop_messages('t_plan', NULL, 'g_plan', 1, 2, false, NULL, NULL, NULL, NULL, '');
SELECT cmp_ok(pg_temp.index_entries_read('queen.partitions') - (SELECT partition_entries FROM before_narrow_pop),
              '<=', 40::bigint, 'a pop of two partitions probes their keys, it does not read every partition');
CREATE TEMP TABLE before_narrow_ack AS SELECT pg_temp.index_entries_read('queen.partitions') AS partition_entries;
SELECT count(*) FROM queen.ack_messages(
  (SELECT jsonb_agg(jsonb_build_object('transactionId', transaction_id, 'partitionId', partition_id,
                                       'leaseId', lease_id, 'status', 'completed'))
     FROM narrow_pop), 'g_plan', '', NULL);
SELECT cmp_ok(pg_temp.index_entries_read('queen.partitions') - (SELECT partition_entries FROM before_narrow_ack),
              '<=', 40::bigint, 'an ack of two partitions probes their keys, it does not read every partition');
CREATE TEMP TABLE before_auto_pop AS SELECT pg_temp.index_entries_read('queen.partitions') AS partition_entries;
SELECT count(*) FROM queen.pop_messages('t_plan', NULL, 'g_plan', 10, 2, true, NULL, NULL, NULL, NULL, '');
SELECT cmp_ok(pg_temp.index_entries_read('queen.partitions') - (SELECT partition_entries FROM before_auto_pop),
              '<=', 40::bigint, 'an autoAck pop that drains two partitions probes their keys');

-- JIT code is compiled on every execution of a plan: procedures whose estimates grow with the tables carry jit=off.
SELECT is(ARRAY(SELECT p.proname::text FROM pg_proc p
                 WHERE p.pronamespace::regnamespace::text IN ('queen', 'queen_internal')
                   AND p.proname IN ('push_with_dedup', 'store_items', 'pop_messages', 'pop_many', 'ack_messages',
                                     'ack_many', 'reconcile_stats', 'compute_queue_stats', 'expire_messages',
                                     'apply_retention')
                   AND 'jit=off' = ANY (p.proconfig)
                 ORDER BY 1),
          ARRAY['ack_many', 'ack_messages', 'apply_retention', 'compute_queue_stats', 'expire_messages', 'pop_many',
                'pop_messages', 'push_with_dedup', 'reconcile_stats', 'store_items'],
          'the hot and the sweeping procedures run without JIT');

SELECT * FROM finish();
ROLLBACK;
