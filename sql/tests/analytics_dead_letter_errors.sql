-- pgTAP: queen.analytics_dead_letter_errors (GET /api/v1/analytics/dead-letter-errors)
BEGIN;
CREATE EXTENSION IF NOT EXISTS pgtap;
SELECT plan(9);

SELECT count(*) FROM queen.push_messages('[
  {"queue": "t_dle_a", "transactionId": "a1"}, {"queue": "t_dle_a", "transactionId": "a2"},
  {"queue": "t_dle_a", "transactionId": "a3"}, {"queue": "t_dle_a", "transactionId": "a4"},
  {"queue": "t_dle_b", "transactionId": "b1"}]', NULL, '');
SELECT count(*) FROM queen.push_messages('[{"queue": "t_dle_a", "transactionId": "o1"}]', NULL, 'other');
-- a1, a2: the same error but for a tail past 200 characters (grouped); a3: another error; a4: queue mode, long ago
SELECT queen_internal.dead_letter(m.partition_id, m.seq, x.grp, x.err, 0)
  FROM (VALUES ('a1', 'g1', repeat('x', 200) || ' id 1'), ('a2', 'g1', repeat('x', 200) || ' id 2'),
               ('a3', 'g1', 'timeout'), ('a4', '__QUEUE_MODE__', 'old'), ('b1', '__QUEUE_MODE__', 'timeout'),
               ('o1', 'g1', 'timeout')) x(txid, grp, err)
  JOIN queen.stored_messages m ON m.transaction_id = x.txid;
UPDATE queen.dlq SET failed_at = now() - interval '1 minute' WHERE transaction_id = 'a1';
UPDATE queen.dlq SET failed_at = now() - interval '3 hours' WHERE transaction_id = 'a4';
UPDATE queen.dlq SET failed_at = now() - interval '2 minutes' WHERE transaction_id = 'b1';

CREATE TEMP TABLE answer AS
SELECT queen.analytics_dead_letter_errors('', jsonb_build_object('queue', 't_dle_a')) AS r;

SELECT is((SELECT r->'deadLetters' FROM answer), '3'::jsonb, 'the window (the last hour) holds three dead letters of t_dle_a');
SELECT is((SELECT r->'total' FROM answer), '2'::jsonb, 'grouped by queue, group and the first 200 characters: two groups');
SELECT is((SELECT r->'errors'->0->'count' FROM answer), '2'::jsonb, 'most frequent first');
SELECT is((SELECT r->'errors'->0->>'error' FROM answer), repeat('x', 200) || ' id 2', 'a group shows its newest full error');
SELECT ok((SELECT (r->'errors'->0->>'firstFailedAt')::timestamptz < (r->'errors'->0->>'lastFailedAt')::timestamptz FROM answer),
          'first and last failure of the group');
SELECT is((SELECT (r->'errors'->1) - 'firstFailedAt'::text - 'lastFailedAt'::text FROM answer),
          '{"queue": "t_dle_a", "consumerGroup": "g1", "error": "timeout", "count": 1}'::jsonb, 'the other group');
SELECT is((SELECT queen.analytics_dead_letter_errors('', jsonb_build_object('queue', 't_dle_a',
                    'fromMs', (extract(epoch FROM now() - interval '4 hours') * 1000)::bigint))->'errors'->2->'consumerGroup'),
          'null'::jsonb, 'a wider window finds the queue-mode dead letter; queue mode is a null group');
SELECT is((SELECT jsonb_path_query_array(queen.analytics_dead_letter_errors('', '{"limit": 1, "offset": 1}'), '$.errors[*].queue')),
          '["t_dle_a"]'::jsonb, 'limit and offset page the groups; a tie in count goes to the newer failure (t_dle_a''s timeout)');
SELECT is((SELECT queen.analytics_dead_letter_errors('other', '{}')->'deadLetters'), '1'::jsonb,
          'a tenant sees its own dead letters only');

SELECT * FROM finish();
ROLLBACK;
