-- pgTAP: queen.push_messages routing items with a future deliverAt to
-- schedule_messages, and queen.timer_queue_names.
BEGIN;
CREATE EXTENSION IF NOT EXISTS pgtap;
SELECT plan(19);

-- A mixed call: stored now, a timer, a past deliverAt (stored now), a timer as epoch ms.
CREATE TEMP TABLE mixed AS
SELECT * FROM queen.push_messages(jsonb_build_array(
  jsonb_build_object('queue', 'pd-q', 'partition', 'p', 'transactionId', 'now-1', 'payload', jsonb_build_object('n', 0)),
  jsonb_build_object('queue', 'pd-q', 'partition', 'p', 'transactionId', 'later-1', 'deliverAt', '2999-01-01T00:00:00Z',
                     'payload', jsonb_build_object('n', 1)),
  jsonb_build_object('queue', 'pd-q', 'partition', 'p', 'transactionId', 'past-1', 'deliverAt', '2001-01-01T00:00:00Z'),
  jsonb_build_object('queue', 'pd-q2', 'transactionId', 'later-2', 'deliverAt', 32503680000000)
), 'producer-x', '');

SELECT results_eq('SELECT idx, status, transaction_id, queue_name FROM mixed',
                  $$VALUES (0, 'queued', 'now-1', 'pd-q'), (1, 'queued', 'later-1', 'pd-q'),
                           (2, 'queued', 'past-1', 'pd-q'), (3, 'queued', 'later-2', 'pd-q2')$$,
                  'one row per item, in item order, whichever way each item went');
SELECT results_eq($$SELECT m.transaction_id FROM queen.stored_messages m JOIN queen.partitions p ON p.id = m.partition_id
                     JOIN queen.queues q ON q.id = p.queue_id WHERE q.name = 'pd-q' ORDER BY m.seq$$,
                  $$VALUES ('now-1'), ('past-1')$$,
                  'items without deliverAt or with a past one are stored now, in item order');
SELECT results_eq($$SELECT transaction_id, deliver_at, producer_sub FROM queen.timers
                     WHERE queue_name IN ('pd-q', 'pd-q2') ORDER BY transaction_id$$,
                  $$VALUES ('later-1', '2999-01-01T00:00:00Z'::timestamptz, 'producer-x'),
                           ('later-2', '3000-01-01T00:00:00Z'::timestamptz, 'producer-x')$$,
                  'items with a future deliverAt (ISO-8601 or epoch ms) become timers with the producer');
SELECT is((SELECT message_id FROM mixed WHERE idx = 1),
          (SELECT message_id FROM queen.timers WHERE transaction_id = 'later-1'),
          'a scheduled item answers the id its message will have');
SELECT is((SELECT partition_id FROM mixed WHERE idx = 1), (SELECT partition_id FROM mixed WHERE idx = 0),
          'a scheduled item into an existing partition names it');
SELECT ok((SELECT partition_id IS NULL FROM mixed WHERE idx = 3),
          'a scheduled item into a queue that does not exist yet has no partition id');
SELECT is((SELECT count(*)::int FROM queen.queues WHERE name = 'pd-q2'), 0, 'scheduling creates no queue');

-- Only timers: the whole call is a schedule.
SELECT results_eq($$SELECT idx, status FROM queen.push_messages(
                      '[{"queue": "pd-q", "partition": "p", "transactionId": "later-3", "deliverAt": "2999-05-05T00:00:00+02:00"},
                        {"queue": "pd-q", "partition": "p", "transactionId": "later-1", "deliverAt": "2999-01-02T00:00:00Z"}]', NULL, '')$$,
                  $$VALUES (0, 'queued'), (1, 'duplicate')$$,
                  'a call of timers only: new keys queued, a pending timer''s key is a duplicate');
SELECT is((SELECT deliver_at FROM queen.timers WHERE transaction_id = 'later-1'), '2999-01-01T00:00:00Z'::timestamptz,
          'a duplicate does not move the pending timer');

-- A timer repeating the key of an item stored by the same call is a duplicate of it.
CREATE TEMP TABLE same_key AS
SELECT * FROM queen.push_messages(
  '[{"queue": "pd-q", "partition": "p", "transactionId": "k-1"},
    {"queue": "pd-q", "partition": "p", "transactionId": "k-1", "deliverAt": "2999-01-01T00:00:00Z"}]', NULL, '');
SELECT results_eq('SELECT idx, status FROM same_key', $$VALUES (0, 'queued'), (1, 'duplicate')$$,
                  'the stored item wins, the timer with its key is a duplicate');
SELECT is((SELECT message_id FROM same_key WHERE idx = 1), (SELECT message_id FROM same_key WHERE idx = 0),
          '... answering the stored message''s id');
SELECT is((SELECT count(*)::int FROM queen.timers WHERE transaction_id = 'k-1'), 0, '... and no timer is left');

-- A pushed key later scheduled, and a scheduled key later pushed.
SELECT results_eq($$SELECT status FROM queen.push_messages(
                      '[{"queue": "pd-q", "partition": "p", "transactionId": "now-1", "deliverAt": 32503680000000}]', NULL, '')$$,
                  $$VALUES ('duplicate')$$, 'scheduling a stored key is a duplicate');

-- deliverAt is validated even when the rest of the call is a plain push.
SELECT throws_ok($$SELECT * FROM queen.push_messages('[{"queue": "pd-q"}, {"queue": "pd-q", "deliverAt": "soon"}]', NULL, '')$$,
                 '22023', NULL, 'an unparsable deliverAt raises 22023');
SELECT throws_like($$SELECT * FROM queen.push_messages('[{"queue": "pd-q", "deliverAt": true}]', NULL, '')$$,
                   '%push item 0%deliverAt%', 'the error names the item');
SELECT lives_ok($$SELECT * FROM queen.push_messages('[{"queue": "pd-q", "deliverAt": null}]', NULL, '')$$,
                'a null deliverAt is a plain push');
SELECT is((SELECT count(*)::int FROM queen.push_messages('[]', NULL, '')), 0, 'an empty call answers nothing');

-- timer_queue_names
SELECT results_eq($$SELECT * FROM queen.timer_queue_names(ARRAY(SELECT id FROM queen.timers
                                                             WHERE queue_name IN ('pd-q', 'pd-q2')) || ARRAY[-1::bigint])$$,
                  $$VALUES ('pd-q'), ('pd-q2')$$, 'timer_queue_names: distinct names, unknown ids ignored');
SELECT is((SELECT count(*)::int FROM queen.timer_queue_names('{}')), 0, 'timer_queue_names of no ids is empty');

SELECT * FROM finish();
ROLLBACK;
