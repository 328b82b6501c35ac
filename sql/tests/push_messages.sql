-- pgTAP: queen.push_messages
BEGIN;
CREATE EXTENSION IF NOT EXISTS pgtap;
SELECT plan(39);

-- push and keep the per-item result rows for the assertions below
CREATE TEMP TABLE r1 AS SELECT * FROM queen.push_messages($$[
  {"queue": "t_push", "payload": {"n": 1}, "transactionId": "tx-1", "traceId": "0f8fad5b-d9cb-469f-a165-70867728950e"},
  {"queue": "t_push", "payload": {"n": 2}, "transactionId": "tx-1"},
  {"queue": "t_push", "partition": "p2", "payload": null, "transactionId": "tx-1"},
  {"queue": "t_push", "transactionId": "tx-2"},
  {"queue": "t_push"},
  {"queue": "t_push", "transactionId": "", "encrypted": true, "payload": {"encrypted": "x", "iv": "y", "authTag": "z"}}
]$$, 'alice', '');

SELECT is((SELECT array_agg(idx ORDER BY idx) FROM r1), ARRAY[0, 1, 2, 3, 4, 5], 'one row per item, idx = position');
SELECT is((SELECT array_agg(status ORDER BY idx) FROM r1),
          ARRAY['queued', 'duplicate', 'queued', 'queued', 'queued', 'queued'], 'statuses');
SELECT is((SELECT message_id FROM r1 WHERE idx = 1), (SELECT message_id FROM r1 WHERE idx = 0),
          'an in-batch duplicate reports the first occurrence''s message id');
SELECT isnt((SELECT message_id FROM r1 WHERE idx = 2), (SELECT message_id FROM r1 WHERE idx = 0),
            'the same transactionId in another partition is another message');
SELECT is((SELECT count(*) FROM queen.stored_messages m JOIN r1 ON r1.partition_id = m.partition_id AND r1.message_id = m.id), 6::bigint,
          'every queued/duplicate message id exists');
SELECT is((SELECT payload FROM queen.stored_messages WHERE id = (SELECT message_id FROM r1 WHERE idx = 0)), '{"n": 1}'::jsonb,
          'the first occurrence is stored, later ones are not');
SELECT is((SELECT payload FROM queen.stored_messages WHERE id = (SELECT message_id FROM r1 WHERE idx = 2)), 'null'::jsonb,
          'JSON null payload stays null');
SELECT is((SELECT payload FROM queen.stored_messages WHERE id = (SELECT message_id FROM r1 WHERE idx = 3)), '{}'::jsonb,
          'an absent payload becomes {}');
SELECT ok((SELECT transaction_id FROM r1 WHERE idx = 4) ~ '^[0-9a-f]{8}-[0-9a-f]{4}-7', 'an absent transactionId is minted (UUIDv7)');
SELECT ok((SELECT transaction_id FROM r1 WHERE idx = 5) ~ '^[0-9a-f]{8}-[0-9a-f]{4}-7', 'an empty transactionId is minted too');
SELECT is((SELECT trace_id FROM queen.stored_messages WHERE id = (SELECT message_id FROM r1 WHERE idx = 0)),
          '0f8fad5b-d9cb-469f-a165-70867728950e'::uuid, 'traceId stored');
SELECT is((SELECT array_agg(DISTINCT producer_sub) FROM queen.stored_messages m JOIN r1 ON r1.message_id = m.id), ARRAY['alice'],
          'producer_sub stamped from the argument');
SELECT is((SELECT is_encrypted FROM queen.stored_messages WHERE id = (SELECT message_id FROM r1 WHERE idx = 5)), true, 'encrypted flag stored');
SELECT is((SELECT array_agg(DISTINCT partition_name) FROM r1 WHERE idx <> 2), ARRAY['Default'], 'partition defaults to Default');
SELECT is((SELECT array_agg(m.seq ORDER BY r1.idx) FROM r1 JOIN queen.stored_messages m ON m.id = r1.message_id WHERE r1.partition_name = 'Default' AND r1.status = 'queued'),
          ARRAY[1, 2, 3, 4]::bigint[], 'sequence numbers follow request order, from 1');
SELECT is((SELECT last_seq FROM queen.partitions WHERE id = (SELECT partition_id FROM r1 WHERE idx = 0)), 4::bigint,
          'last_seq is the highest allocated seq');
SELECT is((SELECT count(DISTINCT m.created_at) FROM queen.stored_messages m JOIN r1 ON r1.message_id = m.id), 1::bigint,
          'one call stamps one created_at');
SELECT is((SELECT last_message_at FROM queen.partitions WHERE id = (SELECT partition_id FROM r1 WHERE idx = 0)),
          (SELECT created_at FROM queen.stored_messages WHERE id = (SELECT message_id FROM r1 WHERE idx = 0)), 'last_message_at = newest created_at');

-- queue auto-creation with derived / explicit namespace and task
SELECT is((SELECT namespace || '|' || task FROM queen.queues WHERE name = 't_push'), 't_push|', 'no dot: namespace = name, task empty');
SELECT lives_ok($$SELECT * FROM queen.push_messages('[{"queue": "billing.invoice.render"}, {"queue": "t_ns", "namespace": "N", "task": "T"}, {"queue": "t_ns", "namespace": "other"}]', NULL, '')$$,
                'pushing to unknown queues creates them');
SELECT is((SELECT namespace || '|' || task FROM queen.queues WHERE name = 'billing.invoice.render'), 'billing|invoice.render',
          'namespace before the first dot, task after it');
SELECT is((SELECT namespace || '|' || task FROM queen.queues WHERE name = 't_ns'), 'N|T', 'explicit namespace/task of the first item win');
SELECT is((SELECT lease_time FROM queen.queues WHERE name = 't_ns'), 300, 'auto-created queues get default options');

-- across calls
CREATE TEMP TABLE r2 AS SELECT * FROM queen.push_messages('[{"queue": "t_push", "transactionId": "tx-1"}, {"queue": "t_push", "transactionId": "tx-3"}]', NULL, '');
SELECT is((SELECT status FROM r2 WHERE idx = 0), 'duplicate', 'a stored transactionId is a duplicate in a later call');
SELECT is((SELECT message_id FROM r2 WHERE idx = 0), (SELECT message_id FROM r1 WHERE idx = 0), '... reporting the stored winner');
SELECT is((SELECT m.seq FROM r2 JOIN queen.stored_messages m ON m.id = r2.message_id WHERE r2.idx = 1), 5::bigint, 'a later call continues the sequence');

-- tombstones: a deleted message's key stays taken while its tombstone is live
INSERT INTO queen.dedup_tombstones (partition_id, transaction_id, message_id, expires_at)
SELECT partition_id, 'tx-gone', '01950000-0000-7000-8000-000000000001', now() + interval '1 hour' FROM r1 WHERE idx = 0;
INSERT INTO queen.dedup_tombstones (partition_id, transaction_id, message_id, expires_at)
SELECT partition_id, 'tx-old', '01950000-0000-7000-8000-000000000002', now() - interval '1 second' FROM r1 WHERE idx = 0;
CREATE TEMP TABLE r3 AS SELECT * FROM queen.push_messages('[{"queue": "t_push", "transactionId": "tx-gone"}, {"queue": "t_push", "transactionId": "tx-old"}]', NULL, '');
SELECT is((SELECT status || ' ' || message_id FROM r3 WHERE idx = 0), 'duplicate 01950000-0000-7000-8000-000000000001',
          'a live tombstone answers duplicate with the deleted message id');
SELECT is((SELECT status FROM r3 WHERE idx = 1), 'queued', 'an expired tombstone no longer blocks the key');

-- maxSize: pending messages (not consumed by every group) are capped per queue
SELECT queen.configure_queue('t_cap', NULL, NULL, '{"maxSize": 3}', '');
SELECT is((SELECT array_agg(status ORDER BY idx) FROM queen.push_messages('[{"queue": "t_cap", "transactionId": "a"}, {"queue": "t_cap", "transactionId": "b"}]', NULL, '')),
          ARRAY['queued', 'queued'], 'under maxSize: queued');
CREATE TEMP TABLE r4 AS SELECT * FROM queen.push_messages('[{"queue": "t_cap", "transactionId": "a"}, {"queue": "t_cap", "transactionId": "c"}, {"queue": "t_cap", "partition": "x", "transactionId": "d"}, {"queue": "t_cap", "partition": "x", "transactionId": "d"}]', NULL, '');
SELECT is((SELECT array_agg(status ORDER BY idx) FROM r4), ARRAY['duplicate', 'queued', 'failed', 'failed'],
          'past maxSize (counted across partitions) items fail; duplicates do not take room; in-batch duplicates of a failed item fail too');
SELECT ok((SELECT error FROM r4 WHERE idx = 2) LIKE '%maxSize%', 'the failure says maxSize');
SELECT is((SELECT message_id FROM r4 WHERE idx = 2), NULL, 'a failed item has no message id');
INSERT INTO queen.consumers (partition_id, consumer_group, queue_id, cursor_seq)
SELECT p.id, '__QUEUE_MODE__', p.queue_id, 2 FROM queen.partitions p JOIN queen.queues q ON q.id = p.queue_id WHERE q.name = 't_cap' AND p.name = 'Default';
SELECT is((SELECT status FROM queen.push_messages('[{"queue": "t_cap", "partition": "x", "transactionId": "d"}]', NULL, '')), 'queued',
          'consumed messages free room under maxSize');

-- validation
SELECT throws_ok($$SELECT * FROM queen.push_messages('{}', NULL, '')$$, '22023', 'items array is required', 'items must be an array');
SELECT is((SELECT count(*) FROM queen.push_messages('[]', NULL, '')), 0::bigint, 'an empty batch returns no rows');
SELECT throws_ok($$SELECT * FROM queen.push_messages('[{"queue": "t_push"}, {"payload": 1}]', NULL, '')$$, '22023',
                 'push item 1: queue must be a non-empty string', 'a missing queue names the item');
SELECT throws_ok($$SELECT * FROM queen.push_messages('[{"queue": "t_push", "transactionId": 5}]', NULL, '')$$, '22023', NULL, 'transactionId must be a string');
SELECT throws_ok($$SELECT * FROM queen.push_messages('[{"queue": "t_push", "traceId": "not-a-uuid"}]', NULL, '')$$, '22023', NULL, 'traceId must be a UUID');
SELECT throws_ok($$SELECT * FROM queen.push_messages('[{"queue": "t_push", "partition": 7}]', NULL, '')$$, '22023', NULL, 'partition must be a string');

SELECT * FROM finish();
ROLLBACK;
