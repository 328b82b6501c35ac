-- pgTAP: queen.record_trace, message_traces_of, traces_by_name, trace_names
BEGIN;
CREATE EXTENSION IF NOT EXISTS pgtap;
SELECT plan(16);

SELECT count(*) FROM queen.push_messages('[{"queue": "t_tr_a", "transactionId": "m1", "payload": {"n": 1}},
                                           {"queue": "t_tr_a", "transactionId": "m2"}]', NULL, '');
SELECT count(*) FROM queen.push_messages('[{"queue": "t_tr_a", "transactionId": "o1"}]', NULL, 'other');
CREATE TEMP TABLE pid AS SELECT p.id FROM queen.partitions p JOIN queen.queues q ON q.id = p.queue_id
                          WHERE q.name = 't_tr_a' AND q.tenant = '';
CREATE TEMP TABLE opid AS SELECT p.id FROM queen.partitions p JOIN queen.queues q ON q.id = p.queue_id
                           WHERE q.name = 't_tr_a' AND q.tenant = 'other';

SELECT isnt(queen.record_trace((SELECT id FROM pid), 'm1', '{"step": 1}', ARRAY['t_tr_render', 't_tr_acme'], 'info', '__QUEUE_MODE__', NULL, ''), NULL,
            'a trace on a known message returns its id');
SELECT isnt(queen.record_trace((SELECT id FROM pid), 'm1', '{"step": 2}', ARRAY['t_tr_render', 't_tr_render'], 'error', 'g1', 'w-1', ''),
            NULL, 'a second trace');
SELECT isnt(queen.record_trace((SELECT id FROM pid), 'm2', '"x"', ARRAY['t_tr_render'], 'info', '__QUEUE_MODE__', NULL, ''), NULL, 'a trace on another message');
SELECT is(queen.record_trace((SELECT id FROM pid), 'nope', '{}', '{}', 'info', '__QUEUE_MODE__', NULL, ''), NULL, 'unknown message: null');
SELECT is(queen.record_trace((SELECT id FROM opid), 'o1', '{}', '{}', 'info', '__QUEUE_MODE__', NULL, ''), NULL, 'another tenant''s message does not exist');
SELECT isnt(queen.record_trace((SELECT id FROM opid), 'o1', '{}', ARRAY['t_tr_render'], 'info', '__QUEUE_MODE__', NULL, 'other'),
            NULL, 'its own tenant records it');

SELECT is((SELECT jsonb_array_length(queen.message_traces_of((SELECT id FROM pid), 'm1', '') -> 'traces')), 2, 'two traces on m1');
SELECT is((SELECT t - 'id' - 'created_at' FROM jsonb_array_elements(queen.message_traces_of((SELECT id FROM pid), 'm1', '') -> 'traces') t
            WHERE t ->> 'event_type' = 'error'),
          '{"data": {"step": 2}, "worker_id": "w-1", "event_type": "error", "trace_names": ["t_tr_render"], "consumer_group": "g1"}'::jsonb,
          'snake_case keys; names deduplicated');
SELECT is(queen.message_traces_of((SELECT id FROM pid), 'm1', 'other') -> 'traces', '[]'::jsonb, 'invisible to another tenant');

SELECT is((queen.traces_by_name('t_tr_render', 100, 0, '') ->> 'total')::int, 3, 'by name: total of the tenant');
SELECT is((SELECT array_agg(t ->> 'transaction_id') FROM jsonb_array_elements(queen.traces_by_name('t_tr_render', 2, 0, '') -> 'traces') t),
          ARRAY['m2', 'm1'], 'by name: newest first, paged');
SELECT is((SELECT t -> 'message_payload' FROM jsonb_array_elements(queen.traces_by_name('t_tr_acme', 100, 0, '') -> 'traces') t),
          '{"n": 1}'::jsonb, 'by name carries the message payload');

SELECT is((SELECT t - 'last_seen' FROM jsonb_array_elements(queen.trace_names(50,0,'') -> 'trace_names') t WHERE t ->> 'trace_name' = 't_tr_render'),
          '{"trace_name": "t_tr_render", "trace_count": 3, "message_count": 2}'::jsonb, 'names: counts per name');

SELECT throws_ok($$SELECT queen.record_trace((SELECT id FROM pid), 'm1', NULL, '{}', 'info', '__QUEUE_MODE__', NULL, '')$$, '22023', 'data is required', 'data required');
SELECT throws_ok($$SELECT queen.record_trace((SELECT id FROM pid), 'm1', '{}', array_fill('n'::text, ARRAY[17]), 'info', '__QUEUE_MODE__', NULL, '')$$, '22023', NULL,
                 'too many names');

-- traces go with their message
SELECT queen.delete_message((SELECT id FROM pid), 'm1', '');
SELECT is((SELECT count(*) FROM queen.message_traces t WHERE t.partition_id = (SELECT id FROM pid) AND t.transaction_id = 'm1'),
          0::bigint, 'deleting the message deletes its traces');

SELECT * FROM finish();
ROLLBACK;
