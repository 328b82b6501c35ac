-- pgTAP: the database side of payload encryption (docs/encryption.md): plaintext refused from a
-- broker holding a key and from any other caller, encrypted_queue_names, dead_letter_undecryptable, each within one tenant
BEGIN;
CREATE EXTENSION IF NOT EXISTS pgtap;
SELECT plan(42);

SELECT queen.configure_queue('t_enc', '', '', '{"encryptionEnabled": true}'::jsonb, '');
SELECT queen.configure_queue('t_enc_off', '', '', '{}'::jsonb, '');

SELECT is((SELECT array_agg(queue_name) FROM queen.encrypted_queue_names() WHERE queue_name LIKE 't_enc%'),
          ARRAY['t_enc'], 'encrypted_queue_names lists the encryptionEnabled queues');
SELECT is((SELECT DISTINCT tenant FROM queen.encrypted_queue_names() WHERE queue_name = 't_enc'), '',
          'with the default tenant');

-- A broker with a key sends plaintext (keyHeld) to an encrypted queue: the whole partition is refused.
CREATE TEMP TABLE r1 AS SELECT * FROM queen.push_messages($$[
  {"queue": "t_enc", "payload": {"n": 1}, "transactionId": "e-1", "keyHeld": true},
  {"queue": "t_enc", "payload": {"v": 1}, "transactionId": "e-2", "encrypted": true},
  {"queue": "t_enc", "partition": "p2", "payload": {"v": 1}, "transactionId": "e-3", "encrypted": true},
  {"queue": "t_enc", "partition": "p3", "payload": {"n": 4}, "transactionId": "e-4"},
  {"queue": "t_enc_off", "payload": {"n": 5}, "transactionId": "e-5", "keyHeld": true}
]$$, NULL, '');
SELECT is((SELECT array_agg(status ORDER BY idx) FROM r1),
          ARRAY['encryption_required', 'encryption_required', 'queued', 'encryption_required', 'queued'],
          'plaintext with keyHeld refuses its partition of an encrypted queue, plaintext without keyHeld itself; '
          'other partitions and queues store');
SELECT ok((SELECT bool_and(error LIKE 'queue t_enc has encryptionEnabled: plaintext refused%') FROM r1
            WHERE status = 'encryption_required'), 'the refusal names the queue');
SELECT ok((SELECT bool_and(message_id IS NULL) FROM r1 WHERE status = 'encryption_required'),
          'a refused item has no message id');
SELECT is((SELECT count(*) FROM queen.stored_messages WHERE transaction_id IN ('e-1', 'e-2')), 0::bigint,
          'nothing of the refused partition is stored');
SELECT is((SELECT count(*) FROM queen.stored_messages WHERE transaction_id = 'e-4'), 0::bigint,
          'plaintext without keyHeld (a broker without a key) is not stored either');
SELECT is((SELECT error FROM r1 WHERE transaction_id = 'e-4'),
          'queue t_enc has encryptionEnabled: plaintext refused, and the caller holds no encryption key (the item is '
          'not keyHeld): push it through a broker with QUEEN_ENCRYPTION_KEY',
          'its refusal says the caller holds no key');
SELECT ok((SELECT bool_and(error LIKE '%the broker must encrypt') FROM r1 WHERE transaction_id IN ('e-1', 'e-2')),
          'a keyHeld refusal still tells the broker to encrypt');
SELECT is((SELECT last_seq FROM queen.partitions p JOIN queen.queues q ON q.id = p.queue_id
            WHERE q.name = 't_enc' AND p.name = 'Default'), 0::bigint, 'a refused partition allocates no seq');

-- The re-send, encrypted, in order.
CREATE TEMP TABLE r2 AS SELECT * FROM queen.push_messages($$[
  {"queue": "t_enc", "payload": {"v": 1, "ct": "a"}, "transactionId": "e-1", "encrypted": true},
  {"queue": "t_enc", "payload": {"v": 1, "ct": "b"}, "transactionId": "e-2", "encrypted": true}
]$$, NULL, '');
SELECT is((SELECT array_agg(status ORDER BY idx) FROM r2), ARRAY['queued', 'queued'], 'the encrypted re-send is stored');
SELECT is((SELECT array_agg(transaction_id ORDER BY seq) FROM queen.stored_messages m JOIN queen.partitions p ON p.id = m.partition_id
            JOIN queen.queues q ON q.id = p.queue_id WHERE q.name = 't_enc' AND p.name = 'Default'),
          ARRAY['e-1', 'e-2'], 'in its order');

-- Timers follow the same rule.
CREATE TEMP TABLE r3 AS SELECT * FROM queen.push_messages($$[
  {"queue": "t_enc", "partition": "tp", "payload": {"n": 1}, "transactionId": "t-1", "keyHeld": true, "deliverAt": 32503680000000},
  {"queue": "t_enc", "partition": "tq", "payload": {"v": 1}, "transactionId": "t-2", "encrypted": true, "deliverAt": 32503680000000}
]$$, NULL, '');
SELECT is((SELECT array_agg(status ORDER BY idx) FROM r3), ARRAY['encryption_required', 'queued'],
          'a plaintext timer with keyHeld is refused, an encrypted one scheduled');
SELECT is((SELECT count(*) FROM queen.timers WHERE queue_name = 't_enc' AND transaction_id = 't-1'), 0::bigint,
          'the refused timer is not stored');
SELECT is((SELECT is_encrypted FROM queen.timers WHERE queue_name = 't_enc' AND transaction_id = 't-2'), true,
          'the scheduled timer keeps its encrypted flag');
-- A plaintext timer without keyHeld (a broker without a key) is refused by itself and not stored.
CREATE TEMP TABLE r5 AS SELECT * FROM queen.push_messages($$[
  {"queue": "t_enc", "partition": "tk", "payload": {"n": 1}, "transactionId": "t-3", "deliverAt": 32503680000000},
  {"queue": "t_enc", "partition": "tk", "payload": {"v": 1}, "transactionId": "t-4", "encrypted": true, "deliverAt": 32503680000000}
]$$, NULL, '');
SELECT is((SELECT array_agg(status ORDER BY idx) FROM r5), ARRAY['encryption_required', 'queued'],
          'a plaintext timer without keyHeld is refused, the encrypted one of its partition scheduled');
SELECT ok((SELECT error LIKE '%the caller holds no encryption key%' FROM r5 WHERE idx = 0), 'saying the caller holds no key');
SELECT is((SELECT count(*) FROM queen.timers WHERE queue_name = 't_enc' AND transaction_id = 't-3'), 0::bigint,
          'the refused timer is not stored');

-- Without keyHeld, a plaintext item is refused by itself: an encrypted item of its partition is stored.
CREATE TEMP TABLE r4 AS SELECT * FROM queen.push_messages($$[
  {"queue": "t_enc", "partition": "k", "payload": {"v": 1}, "transactionId": "k-1", "encrypted": true},
  {"queue": "t_enc", "partition": "k", "payload": {"n": 2}, "transactionId": "k-2"},
  {"queue": "t_enc", "partition": "k", "payload": {"n": 3}, "transactionId": "k-3", "encrypted": false}
]$$, NULL, '');
SELECT is((SELECT array_agg(status ORDER BY idx) FROM r4), ARRAY['queued', 'encryption_required', 'encryption_required'],
          'plaintext without keyHeld is refused item by item');
SELECT is((SELECT array_agg(is_encrypted) FROM queen.stored_messages m JOIN queen.partitions p ON p.id = m.partition_id
            JOIN queen.queues q ON q.id = p.queue_id WHERE q.name = 't_enc' AND p.name = 'k'), ARRAY[true],
          'only the encrypted item of that partition is stored');
-- Every path through store_messages: a transaction rolls back.
SELECT is((queen.run_transaction('{"operations": [{"type": "push", "items": [
             {"queue": "t_enc_off", "payload": {"n": 1}, "transactionId": "rt-1"},
             {"queue": "t_enc", "payload": {"n": 2}, "transactionId": "rt-2"}]}]}'::jsonb, NULL, '', NULL)) ->> 'success',
          'false', 'a transaction pushing plaintext into an encrypted queue fails');
SELECT is((SELECT count(*) FROM queen.stored_messages WHERE transaction_id IN ('rt-1', 'rt-2')), 0::bigint,
          'and stores none of its items');
-- A plaintext dead letter requeued into a queue that has wanted encryption since: it stays in the DLQ.
SELECT queen.configure_queue('t_enc_later', '', '', '{"retryLimit": 0}'::jsonb, '');
SELECT queen.push_messages('[{"queue": "t_enc_later", "payload": {"n": 1}, "transactionId": "l-1"}]', NULL, '');
SELECT queen_internal.dead_letter(m.partition_id, m.seq, '__QUEUE_MODE__', 'test', 0)
  FROM queen.stored_messages m WHERE m.transaction_id = 'l-1';
SELECT queen.configure_queue('t_enc_later', '', '', '{"encryptionEnabled": true}'::jsonb, '');
SELECT is(queen.requeue_dead_letters('t_enc_later', NULL, NULL, NULL, NULL, NULL, '') ->> 'requeued', '0',
          'a plaintext dead letter is not requeued into an encrypted queue');
SELECT is((SELECT count(*) FROM queen.dlq d JOIN queen.partitions p ON p.id = d.partition_id
            JOIN queen.queues q ON q.id = p.queue_id WHERE q.name = 't_enc_later'), 1::bigint, 'it stays in the DLQ');

SELECT throws_ok($$SELECT * FROM queen.push_messages('[{"queue": "t_enc", "keyHeld": "yes"}]', NULL, '')$$, '22023',
                 'push item 0: keyHeld must be a boolean', 'keyHeld must be a boolean');

-- dead_letter_undecryptable: a batch of 4 where the 1st, 3rd and 4th cannot be decrypted.
SELECT queen.push_messages($$[
  {"queue": "t_enc", "partition": "d", "payload": {"v": 1}, "transactionId": "d-1", "encrypted": true},
  {"queue": "t_enc", "partition": "d", "payload": {"v": 1}, "transactionId": "d-2", "encrypted": true},
  {"queue": "t_enc", "partition": "d", "payload": {"v": 1}, "transactionId": "d-3", "encrypted": true},
  {"queue": "t_enc", "partition": "d", "payload": {"v": 1}, "transactionId": "d-4", "encrypted": true}
]$$, NULL, '');
CREATE TEMP TABLE popped AS SELECT * FROM queen.pop_messages('t_enc', 'd', NULL, 10, 1, false, NULL, NULL, NULL, NULL, '');
SELECT is((SELECT count(*) FROM popped), 4::bigint, 'the batch is leased');
SELECT is(queen.dead_letter_undecryptable(
            (SELECT jsonb_agg(jsonb_build_object('partitionId', partition_id, 'transactionId', transaction_id,
                                                 'leaseId', lease_id, 'error', 'undecryptable payload: test'))
               FROM popped WHERE transaction_id IN ('d-1', 'd-3', 'd-4')), NULL, ''), 3,
          'three dead-lettered');
SELECT is((SELECT array_agg(transaction_id ORDER BY seq) FROM queen.dlq WHERE consumer_group = '__QUEUE_MODE__'
            AND transaction_id LIKE 'd-%'), ARRAY['d-1', 'd-3', 'd-4'], 'into the queue-mode DLQ');
SELECT is((SELECT DISTINCT error_message FROM queen.dlq WHERE transaction_id LIKE 'd-%'), 'undecryptable payload: test',
          'with the reason');
SELECT is((SELECT c.cursor_seq FROM queen.consumers c JOIN popped ON popped.partition_id = c.partition_id LIMIT 1),
          1::bigint, 'a leading undecryptable run is consumed');
SELECT is((SELECT c.lease_max_seq FROM queen.consumers c JOIN popped ON popped.partition_id = c.partition_id LIMIT 1),
          2::bigint, 'a trailing run leaves the lease: its last good message ends it');
SELECT is((SELECT (queen.ack_messages(jsonb_build_array(jsonb_build_object('transactionId', 'd-2',
                     'partitionId', partition_id, 'leaseId', lease_id)), NULL, '')).lease_released FROM popped WHERE transaction_id = 'd-2'),
          true, 'acking the good message releases the lease');
-- The trailing run comes back once, as the leading run of the next batch, and is passed then.
CREATE TEMP TABLE popped2 AS SELECT * FROM queen.pop_messages('t_enc', 'd', NULL, 10, 1, false, NULL, NULL, NULL, NULL, '');
SELECT is((SELECT array_agg(transaction_id ORDER BY transaction_id) FROM popped2), ARRAY['d-3', 'd-4'],
          'the next pop meets the trailing run');
SELECT queen.dead_letter_undecryptable(
  (SELECT jsonb_agg(jsonb_build_object('partitionId', partition_id, 'transactionId', transaction_id,
                                       'leaseId', lease_id, 'error', 'undecryptable payload: test'))
     FROM popped2), NULL, '');
SELECT is((SELECT count(*) FROM queen.pop_messages('t_enc', 'd', NULL, 10, 1, false, NULL, NULL, NULL, NULL, '')), 0::bigint,
          'then nothing of the batch comes back');
SELECT is((SELECT count(*) FROM queen.dlq WHERE transaction_id LIKE 'd-%'), 3::bigint, 'and the DLQ holds each once');

-- Tenants: acme's t_enc_off wants encryption; the default tenant's queue of that name does not.
SELECT queen.configure_queue('t_enc_off', '', '', '{"encryptionEnabled": true}'::jsonb, 'acme');
SELECT is((SELECT array_agg(tenant ORDER BY tenant) FROM queen.encrypted_queue_names() WHERE queue_name = 't_enc_off'),
          ARRAY['acme'], 'encrypted_queue_names names the tenant of each queue');
SELECT is((SELECT array_agg(status ORDER BY idx) FROM queen.push_messages(
            '[{"queue": "t_enc_off", "payload": {"n": 6}, "transactionId": "e-6", "keyHeld": true}]', NULL, 'acme')),
          ARRAY['encryption_required'], 'plaintext for acme''s encrypted queue is refused');
SELECT is((SELECT array_agg(status ORDER BY idx) FROM queen.push_messages(
            '[{"queue": "t_enc_off", "payload": {"n": 7}, "transactionId": "e-7", "keyHeld": true}]', NULL, '')),
          ARRAY['queued'], 'the default tenant''s queue of the same name stores it');
SELECT is((SELECT array_agg(status ORDER BY idx) FROM queen.push_messages(
            '[{"queue": "t_enc_off", "partition": "tp", "payload": {"n": 8}, "transactionId": "e-8", "keyHeld": true,
               "deliverAt": 32503680000000}]', NULL, 'acme')),
          ARRAY['encryption_required'], 'a timer for acme''s encrypted queue is refused too');
SELECT is((SELECT array_agg(status ORDER BY idx) FROM queen.push_messages(
            '[{"queue": "t_enc_off", "partition": "tp", "payload": {"n": 9}, "transactionId": "e-9", "keyHeld": true,
               "deliverAt": 32503680000000}]', NULL, '')),
          ARRAY['queued'], 'and scheduled for the default tenant');
-- dead_letter_undecryptable acts only on the calling tenant's partitions.
SELECT queen.push_messages('[{"queue": "t_enc_off", "partition": "x", "payload": {"v": 1}, "transactionId": "x-1",
                              "encrypted": true}]', NULL, 'acme');
CREATE TEMP TABLE popped3 AS SELECT * FROM queen.pop_messages('t_enc_off', 'x', NULL, 10, p_tenant => 'acme', p_partitions => 1, p_auto_ack => false, p_subscription_mode => NULL, p_subscription_from => NULL, p_namespace => NULL, p_task => NULL);
SELECT is(queen.dead_letter_undecryptable(
            (SELECT jsonb_agg(jsonb_build_object('partitionId', partition_id, 'transactionId', transaction_id,
                                                 'leaseId', lease_id, 'error', 'undecryptable payload: test'))
               FROM popped3), NULL, 'globex'), 0, 'another tenant cannot dead-letter acme''s message');
SELECT is(queen.dead_letter_undecryptable(
            (SELECT jsonb_agg(jsonb_build_object('partitionId', partition_id, 'transactionId', transaction_id,
                                                 'leaseId', lease_id, 'error', 'undecryptable payload: test'))
               FROM popped3), NULL, 'acme'), 1, 'acme can');

SELECT * FROM finish();
ROLLBACK;
