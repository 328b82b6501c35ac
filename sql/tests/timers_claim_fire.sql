-- pgTAP: the sweeper procedures, queen.claim_due_timers / fire_timers / next_timer_due.
-- A test transaction cannot wait for time to pass, so claims and fires name the
-- instant they run at (p_now) instead: pg_temp.at(s) is s seconds after the
-- first timer's deliverAt.
BEGIN;
CREATE EXTENSION IF NOT EXISTS pgtap;
CREATE EXTENSION IF NOT EXISTS dblink;
SELECT plan(42);

-- Only this test's timers exist for the claims below.
DELETE FROM queen.timers;

SELECT is(queen.next_timer_due(), NULL::timestamptz, 'no timers: nothing is due');

CREATE TEMP TABLE t0 AS SELECT date_trunc('second', now()) + interval '1 hour' AS first_due;
CREATE FUNCTION pg_temp.at(p_seconds numeric) RETURNS timestamptz LANGUAGE sql AS $$
  SELECT first_due + p_seconds * interval '1 second' FROM t0
$$;

CREATE TEMP TABLE sched AS
SELECT * FROM queen_internal.schedule_messages(jsonb_build_array(
  jsonb_build_object('queue', 'tq-fire', 'partition', 'p', 'transactionId', 'late',
                     'payload', jsonb_build_object('n', 2), 'deliverAt', pg_temp.at(1)),
  jsonb_build_object('queue', 'tq-fire', 'partition', 'p', 'transactionId', 'early', 'namespace', 'ns-x', 'task', 'task-x',
                     'payload', jsonb_build_object('n', 1), 'deliverAt', pg_temp.at(0),
                     'traceId', '0f8fad5b-d9cb-469f-a165-70867728950e', 'encrypted', true),
  jsonb_build_object('queue', 'tq-fire', 'partition', 'p', 'transactionId', 'future', 'deliverAt', '2999-01-01T00:00:00Z')
), 'producer-x');
CREATE TEMP TABLE ids AS
SELECT transaction_id, (SELECT id FROM queen.timers t WHERE t.transaction_id = s.transaction_id) AS timer_id, message_id
  FROM sched s;

SELECT is(queen.next_timer_due(), pg_temp.at(0), 'next due is the earliest deliverAt');

-- Nothing is claimable before its time.
SELECT is((SELECT count(*)::int FROM queen.claim_due_timers('broker-a', 10, 30000)), 0, 'a timer is not claimable before deliverAt');
SELECT is((SELECT count(*)::int FROM queen.claim_due_timers('broker-a', 10, 30000, pg_temp.at(-0.001))), 0,
          '... not even 1 ms before');
SELECT is(queen.fire_timers('broker-a', ARRAY(SELECT timer_id FROM ids)), 0, 'an unclaimed timer cannot be fired');
SELECT is((SELECT count(*)::int FROM queen.queues WHERE name = 'tq-fire'), 0, '... so no message (nor queue) exists');

-- claim, at a time when two of them are due ('early' before 'late')
CREATE TEMP TABLE claimed_a AS SELECT c AS id FROM queen.claim_due_timers('broker-a', 10, 30000, pg_temp.at(2)) AS c;
SELECT is((SELECT array_agg(id ORDER BY id) FROM claimed_a),
          (SELECT array_agg(timer_id ORDER BY timer_id) FROM ids WHERE transaction_id IN ('early', 'late')),
          'exactly the due timers are claimed');
SELECT is((SELECT array_agg(transaction_id ORDER BY ord) FROM
             (SELECT c AS id, row_number() OVER () AS ord FROM queen.claim_due_timers('broker-z', 10, 30000, pg_temp.at(2)) c) x
             JOIN ids ON ids.timer_id = x.id), NULL::text[], 'a second broker claims nothing while the claim is live');
SELECT ok((SELECT bool_and(claimed_by = 'broker-a' AND claim_expires_at = pg_temp.at(32))
             FROM queen.timers WHERE id IN (SELECT id FROM claimed_a)), 'the claim records its owner and lease');
SELECT is(queen.next_timer_due(), pg_temp.at(32), 'claimed timers are next due when their claim expires');

-- limit (the claims of broker-a have expired 31 s later)
SELECT is((SELECT count(*)::int FROM queen.claim_due_timers('broker-c', 1, 30000, pg_temp.at(33))), 1, 'the limit bounds a claim');
SELECT is((SELECT transaction_id FROM queen.timers WHERE claimed_by = 'broker-c'), 'early', 'the earliest due timer is claimed first');
SELECT is((SELECT count(*)::int FROM queen.claim_due_timers('broker-c', 10, 30000, pg_temp.at(33))), 1, 'the next claim takes the rest');

-- A claim lost to expiry fires nothing; the new holder fires.
SELECT is(queen.fire_timers('broker-c', ARRAY(SELECT id FROM claimed_a), pg_temp.at(63)), 0, 'an expired claim cannot fire');
SELECT is((SELECT count(*)::int FROM queen.timers WHERE id IN (SELECT id FROM claimed_a)), 2, '... and leaves the timers in place');
CREATE TEMP TABLE claimed_b AS SELECT c AS id FROM queen.claim_due_timers('broker-b', 10, 30000, pg_temp.at(63)) AS c;
SELECT is((SELECT count(*)::int FROM claimed_b), 2, 'after expiry another broker claims the timers');
SELECT is(queen.fire_timers('broker-c', ARRAY(SELECT id FROM claimed_a), pg_temp.at(63)), 0, 'the old holder still fires nothing');

-- fire
SELECT is(queen.fire_timers('broker-b', ARRAY(SELECT id FROM claimed_b), pg_temp.at(63)), 2, 'the holder fires both timers');
CREATE TEMP TABLE fired AS
SELECT m.*, q.namespace, q.task FROM queen.stored_messages m
  JOIN queen.partitions p ON p.id = m.partition_id JOIN queen.queues q ON q.id = p.queue_id
 WHERE q.name = 'tq-fire' AND p.name = 'p';
SELECT is((SELECT count(*)::int FROM fired), 2, 'one message per fired timer');
SELECT is((SELECT array_agg(transaction_id ORDER BY seq) FROM fired), ARRAY['early', 'late'],
          'messages are stored in deliverAt order');
SELECT is((SELECT array_agg(id ORDER BY transaction_id) FROM fired),
          (SELECT array_agg(message_id ORDER BY transaction_id) FROM ids WHERE transaction_id IN ('early', 'late')),
          'each message has the id given when it was scheduled');
SELECT results_eq($$SELECT payload, trace_id, producer_sub, is_encrypted FROM fired WHERE transaction_id = 'early'$$,
                  $$VALUES ('{"n": 1}'::jsonb, '0f8fad5b-d9cb-469f-a165-70867728950e'::uuid, 'producer-x', true)$$,
                  'payload, trace id, producer and encryption flag are kept');
SELECT results_eq($$SELECT DISTINCT namespace, task FROM fired$$, $$VALUES ('ns-x', 'task-x')$$,
                  'the fire creates the queue like a push, with the item''s namespace and task');
SELECT is((SELECT count(*)::int FROM queen.timers WHERE id IN (SELECT id FROM claimed_b)), 0, 'fired timers are deleted');
SELECT is(queen.fire_timers('broker-b', ARRAY(SELECT id FROM claimed_b), pg_temp.at(63)), 0, 'firing again does nothing');
SELECT is((SELECT count(*)::int FROM queen.stored_messages WHERE partition_id = (SELECT DISTINCT partition_id FROM fired)), 2,
          'nothing was stored twice');
SELECT is(queen.next_timer_due(), '2999-01-01T00:00:00Z'::timestamptz, 'the future timer is next');

-- A timer whose transactionId got pushed meanwhile completes without a second message.
SELECT * FROM queen_internal.schedule_messages(jsonb_build_array(jsonb_build_object(
  'queue', 'tq-fire', 'partition', 'p', 'transactionId', 'dup', 'deliverAt', pg_temp.at(0))));
SELECT * FROM queen.push_messages('[{"queue": "tq-fire", "partition": "p", "transactionId": "dup", "payload": "pushed"}]', NULL, '');
SELECT is(queen.fire_timers('broker-b', ARRAY(SELECT queen.claim_due_timers('broker-b', 10, 30000, pg_temp.at(100))),
                            pg_temp.at(100)), 1,
          'a timer whose message already exists completes');
SELECT results_eq($$SELECT count(*)::int, min(payload::text) FROM queen.stored_messages WHERE transaction_id = 'dup'$$,
                  $$VALUES (1, '"pushed"')$$, '... without storing a second message');

-- A store the queue refuses (maxSize) keeps the timer, claimed, with the reason.
SELECT queen.configure_queue('tq-full', '', '', '{"maxSize": 1}', '');
SELECT * FROM queen.push_messages('[{"queue": "tq-full", "transactionId": "fills-it"}]', NULL, '');
SELECT * FROM queen_internal.schedule_messages('[{"queue": "tq-full", "transactionId": "refused", "deliverAt": 0}]');
SELECT is(queen.fire_timers('broker-b', ARRAY(SELECT queen.claim_due_timers('broker-b', 10, 30000))), 0,
          'a timer the store refuses does not complete');
SELECT results_eq($$SELECT claimed_by, fire_attempts, last_error LIKE '%maxSize%' FROM queen.timers WHERE transaction_id = 'refused'$$,
                  $$VALUES ('broker-b', 1, true)$$, '... it stays claimed and records why (retried after the lease)');
DELETE FROM queen.timers WHERE transaction_id = 'refused';

-- A timer row cannot name no queue (queue_name is a queen.name_text), so a store
-- that raises is played by a trigger refusing one message: it must not hold back
-- the timer fired with it. (The trigger goes with the rollback: dropping it here
-- would lock queen.segments against the sessions below.)
SELECT throws_ok($$INSERT INTO queen.timers (queue_name, partition_name, message_id, transaction_id, deliver_at)
                   VALUES ('', 'Default', queen_internal.uuid_v7(), 'nameless', clock_timestamp())$$,
                 '23514', NULL, 'a timer without a queue name cannot be written');
CREATE FUNCTION pg_temp.refuse_poison() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'refusing %', NEW.transaction_ids;
END;
$$;
CREATE TRIGGER refuse_poison BEFORE INSERT ON queen.segments
  FOR EACH ROW WHEN ('poison' = ANY (NEW.transaction_ids)) EXECUTE FUNCTION pg_temp.refuse_poison();
SELECT * FROM queen_internal.schedule_messages('[{"queue": "tq-fire", "transactionId": "poison", "deliverAt": 0},
                                        {"queue": "tq-fire", "partition": "p", "transactionId": "healthy", "deliverAt": 0}]');
SET LOCAL client_min_messages = error;  -- the fallback's WARNING is expected here
SELECT is(queen.fire_timers('broker-b', ARRAY(SELECT queen.claim_due_timers('broker-b', 10, 30000))), 1,
          'a timer the store raises on is set aside and the others fire');
RESET client_min_messages;
SELECT is((SELECT count(*)::int FROM queen.stored_messages WHERE transaction_id = 'healthy'), 1, '... the healthy one is stored');
SELECT results_eq($$SELECT claimed_by, fire_attempts, last_error IS NOT NULL FROM queen.timers WHERE transaction_id = 'poison'$$,
                  $$VALUES ('broker-b', 1, true)$$, '... the bad one keeps its claim and records the error');
DELETE FROM queen.timers WHERE transaction_id = 'poison';

-- validation
SELECT throws_ok($$SELECT queen.claim_due_timers('', 10, 1000)$$, '22023', NULL, 'a claim needs a server id');
SELECT throws_ok($$SELECT queen.claim_due_timers('a', 0, 1000)$$, '22023', NULL, 'a claim limit below 1 is rejected');
SELECT throws_ok($$SELECT queen.claim_due_timers('a', 10, 0)$$, '22023', NULL, 'a claim lease below 1 ms is rejected');
SELECT is(queen.fire_timers('a', '{}'), 0, 'firing no ids does nothing');

-- SKIP LOCKED, with two more sessions (dblink) on committed timers: one claims
-- inside an open transaction, the other claims concurrently and must skip the
-- locked row instead of waiting for it (lock_timeout turns a wait into a failure).
-- Its claim lease is 1 ms so that it holds nothing anybody else would wait for.
SELECT dblink_connect('other', format('host=127.0.0.1 port=%s user=%s dbname=%s',
                                      current_setting('port'), current_user, current_database()));
SELECT dblink_connect('third', format('host=127.0.0.1 port=%s user=%s dbname=%s',
                                      current_setting('port'), current_user, current_database()));
SELECT dblink_exec('third', $$SET lock_timeout = '2s'$$);
-- A queue name of its own, so rows left by an interrupted run cannot interfere.
CREATE TEMP TABLE skip_queue AS SELECT 'tq-skip-' || md5(random()::text) AS name;
SELECT count(*) FROM dblink('other', format('SELECT status FROM queen_internal.schedule_messages(%L)',
                                            jsonb_build_array(jsonb_build_object('queue', (SELECT name FROM skip_queue), 'deliverAt', 0),
                                                              jsonb_build_object('queue', (SELECT name FROM skip_queue), 'deliverAt', 0))))
  AS t(status text);
CREATE TEMP TABLE committed AS
SELECT * FROM dblink('other', format('SELECT id FROM queen.timers WHERE queue_name = %L', (SELECT name FROM skip_queue)))
  AS t(id bigint);
SELECT dblink_exec('other', 'BEGIN');
SELECT is((SELECT count(*)::int FROM dblink('other', format('SELECT c FROM queen.claim_due_timers(%L, 1, 30000) c WHERE c = ANY (%L)',
                                                            'broker-other', (SELECT array_agg(id) FROM committed)::text))
                                      AS t(id bigint)), 1,
          'one session claims one of two committed timers, its transaction still open');
SELECT is((SELECT count(*)::int FROM dblink('third', format('SELECT c FROM queen.claim_due_timers(%L, 10, 1) c WHERE c = ANY (%L)',
                                                            'broker-third', (SELECT array_agg(id) FROM committed)::text))
                                      AS t(id bigint)), 1,
          'a concurrent claimer skips the locked row without waiting and takes the free one');
SELECT dblink_exec('other', 'ROLLBACK');
SELECT dblink_exec('other', format('DELETE FROM queen.timers WHERE queue_name = %L', (SELECT name FROM skip_queue)));
SELECT dblink_disconnect('other');
SELECT dblink_disconnect('third');
SELECT pass('the cleanup of the committed timers went through');

SELECT * FROM finish();
ROLLBACK;
