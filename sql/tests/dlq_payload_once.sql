-- pgTAP: a dead letter's payload is stored once per message (queen.dlq_payloads),
-- removed with the message's last entry, and list_dlq keeps to a payload byte budget.
BEGIN;
CREATE EXTENSION IF NOT EXISTS pgtap;
SELECT plan(16);

-- one ~64 KiB payload of hex text (compresses only about 2:1)
SELECT count(*) FROM queen.push_messages(jsonb_build_array(jsonb_build_object(
  'queue', 't_dpo', 'transactionId', 'big',
  'payload', jsonb_build_object('blob', (SELECT string_agg(md5(i::text), '') FROM generate_series(1, 2048) i)))), NULL, '');
SELECT count(*) FROM queen.push_messages('[{"queue": "t_dpo", "transactionId": "small", "payload": {"n": 1}}]', NULL, '');
CREATE TEMP TABLE k AS
  SELECT m.partition_id, m.transaction_id, m.id FROM queen.stored_messages m
    JOIN queen.partitions p ON p.id = m.partition_id JOIN queen.queues q ON q.id = p.queue_id AND q.name = 't_dpo';

-- 200 groups dead-letter the big message
SELECT count(*) FROM generate_series(1, 200) g, k
 WHERE k.transaction_id = 'big' AND queen.dead_letter_message(k.partition_id, 'big', 'g' || g, 'boom', '');
SELECT is((SELECT count(*) FROM queen.dlq d JOIN k ON k.id = d.message_id), 200::bigint, '200 entries, one per group');
SELECT is((SELECT count(*) FROM queen.dlq_payloads p JOIN k ON k.id = p.message_id), 1::bigint,
          'one payload copy for the 200 entries');
SELECT cmp_ok((SELECT sum(pg_column_size(p.payload)) FROM queen.dlq_payloads p JOIN k ON k.id = p.message_id)::bigint,
              '<', 70000::bigint, 'the stored payload bytes are one copy''s, not 200');
SELECT is((SELECT p.payload_bytes FROM queen.dlq_payloads p JOIN k ON k.id = p.message_id),
          (SELECT octet_length(m.payload::text)::bigint FROM queen.stored_messages m JOIN k ON k.id = m.id WHERE k.transaction_id = 'big'),
          'payload_bytes is the JSON text size');

-- the byte budget: 150000 bytes hold two 65 KiB copies of the page, the rest are omitted
SELECT is((SELECT count(*) FROM queen.list_dlq('t_dpo', p_limit => 1000, p_max_payload_bytes => 150000, p_group => NULL, p_partition => NULL, p_from => NULL, p_to => NULL, p_offset => 0, p_tenant => '')), 200::bigint,
          'every entry of the page is listed');
SELECT is((SELECT count(*) FILTER (WHERE payload IS NOT NULL) FROM queen.list_dlq('t_dpo', p_limit => 1000, p_max_payload_bytes => 150000, p_group => NULL, p_partition => NULL, p_from => NULL, p_to => NULL, p_offset => 0, p_tenant => '')),
          2::bigint, 'payloads while the budget lasts');
SELECT is((SELECT bool_and(payload IS NULL) FROM queen.list_dlq('t_dpo', p_limit => 1000, p_max_payload_bytes => 150000, p_group => NULL, p_partition => NULL, p_from => NULL, p_to => NULL, p_offset => 0, p_tenant => '') WHERE payload_omitted),
          true, 'the omitted rows have no payload');
SELECT is((SELECT array_agg(payload_omitted ORDER BY failed_at DESC, message_id, consumer_group)
             FROM queen.list_dlq('t_dpo', p_limit => 3, p_max_payload_bytes => 150000, p_group => NULL, p_partition => NULL, p_from => NULL, p_to => NULL, p_offset => 0, p_tenant => '')),
          ARRAY[false, false, true], 'the first rows in page order get the payloads');
SELECT is((SELECT count(*) FILTER (WHERE payload_omitted) FROM queen.list_dlq('t_dpo', p_max_payload_bytes => 0, p_group => NULL, p_partition => NULL, p_from => NULL, p_to => NULL, p_limit => 100, p_offset => 0, p_tenant => '')),
          100::bigint, 'budget 0: no payload at all');
SELECT is((SELECT DISTINCT total FROM queen.list_dlq('t_dpo', p_limit => 5, p_group => NULL, p_partition => NULL, p_from => NULL, p_to => NULL, p_offset => 0, p_tenant => '')), 200::bigint, 'total counts every match');

-- cleanup with the last entry of the message, whoever deletes it
SELECT is(queen.delete_dead_letters('t_dpo', 'g1', NULL, NULL, NULL, NULL, ''), 1, 'one group''s entry deleted');
SELECT is((SELECT count(*) FROM queen.dlq_payloads p JOIN k ON k.id = p.message_id), 1::bigint,
          'the payload stays while other entries refer to it');
SELECT is(queen.delete_dead_letters('t_dpo', NULL, NULL, NULL, NULL, NULL, ''), 199, 'the others deleted');
SELECT is((SELECT count(*) FROM queen.dlq_payloads p JOIN k ON k.id = p.message_id), 0::bigint,
          'the payload goes with the last entry');

SELECT queen.dead_letter_message(k.partition_id, k.transaction_id, 'g1', 'again', '') FROM k;
SELECT queen.delete_message(k.partition_id, 'small', '') FROM k WHERE k.transaction_id = 'small';
SELECT is((SELECT count(*) FROM queen.dlq_payloads p JOIN k ON k.id = p.message_id), 1::bigint,
          'delete_message removes its dead letter''s payload (the other message''s stays)');
SELECT queen.delete_queue('t_dpo', '');
SELECT is((SELECT count(*) FROM queen.dlq_payloads p JOIN k ON k.id = p.message_id), 0::bigint,
          'delete_queue removes the payloads');

SELECT * FROM finish();
ROLLBACK;
