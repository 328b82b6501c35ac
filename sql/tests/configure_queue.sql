-- pgTAP: queen.configure_queue
BEGIN;
CREATE EXTENSION IF NOT EXISTS pgtap;
SELECT plan(24);

CREATE TEMP TABLE r AS SELECT queen.configure_queue('t_cfg', 'billing', 'render', '{}', '') AS v;

SELECT is((SELECT v -> 'options' FROM r),
  '{"leaseTime": 300, "retryLimit": 3, "retryDelay": 1000, "priority": 0, "delayedProcessing": 0,
    "windowBuffer": 0, "maxSize": 0, "ttl": 3600, "retentionEnabled": false, "retentionSeconds": 0,
    "completedRetentionSeconds": 0, "maxWaitTimeSeconds": 0, "deadLetterQueue": false,
    "dlqAfterMaxRetries": false, "encryptionEnabled": false}'::jsonb,
  'empty options echo all 15 keys with their defaults');
SELECT is((SELECT v ->> 'queueId' FROM r)::uuid, (SELECT id FROM queen.queues WHERE name = 't_cfg'), 'queueId is the queue row');
SELECT is((SELECT v ->> 'partitionId' FROM r)::uuid,
          (SELECT p.id FROM queen.partitions p JOIN queen.queues q ON q.id = p.queue_id WHERE q.name = 't_cfg' AND p.name = 'Default'),
          'partitionId is the Default partition, which configure creates');
SELECT is((SELECT v ->> 'namespace' FROM r), 'billing', 'namespace echoed');
SELECT is((SELECT v ->> 'task' FROM r), 'render', 'task echoed');

CREATE TEMP TABLE full_opts AS SELECT '{"leaseTime": 120, "retryLimit": 2, "retryDelay": 500, "priority": -4,
  "delayedProcessing": 5, "windowBuffer": 6, "maxSize": 7, "ttl": 8, "retentionEnabled": true,
  "retentionSeconds": 86400, "completedRetentionSeconds": 3600, "maxWaitTimeSeconds": 9,
  "deadLetterQueue": true, "dlqAfterMaxRetries": true, "encryptionEnabled": true}'::jsonb AS o;
SELECT is((queen.configure_queue('t_cfg', 'billing', 'render', (SELECT o FROM full_opts), '') -> 'options'),
          (SELECT o FROM full_opts), 'all 15 options are stored and echoed with their JSON types');
SELECT is((SELECT row(lease_time, retry_limit, retry_delay_ms, priority, delayed_processing, window_buffer, max_size, ttl,
                      retention_enabled, retention_seconds, completed_retention_seconds, max_wait_time_seconds,
                      dead_letter_queue, dlq_after_max_retries, encryption_enabled)::text
             FROM queen.queues WHERE name = 't_cfg'),
          '(120,2,500,-4,5,6,7,8,t,86400,3600,9,t,t,t)', 'options land in their typed columns');

SELECT is((queen.configure_queue('t_cfg', NULL, NULL, '{"retryLimit": 9, "unknownKey": "x"}', '') -> 'options'),
  '{"leaseTime": 300, "retryLimit": 9, "retryDelay": 1000, "priority": 0, "delayedProcessing": 0,
    "windowBuffer": 0, "maxSize": 0, "ttl": 3600, "retentionEnabled": false, "retentionSeconds": 0,
    "completedRetentionSeconds": 0, "maxWaitTimeSeconds": 0, "deadLetterQueue": false,
    "dlqAfterMaxRetries": false, "encryptionEnabled": false}'::jsonb,
  'full replace: absent options reset to defaults, unknown keys are ignored');
SELECT is((SELECT namespace || '/' || task FROM queen.queues WHERE name = 't_cfg'), '/', 'null namespace/task overwrite with empty strings');
SELECT is((SELECT count(*) FROM queen.partitions p JOIN queen.queues q ON q.id = p.queue_id WHERE q.name = 't_cfg'),
          1::bigint, 'reconfiguring does not duplicate the Default partition');
SELECT is((queen.configure_queue('t_cfg', 'a', 'b', NULL, '') -> 'options' ->> 'leaseTime')::int, 300, 'null options = defaults');
SELECT is((queen.configure_queue('t_cfg', 'a', 'b', '{"leaseTime": null, "retentionEnabled": null}', '') -> 'options' -> 'leaseTime'),
          '300'::jsonb, 'a JSON null option means default');
SELECT is((queen.configure_queue('t_cfg', 'a', 'b', '{"leaseTime": 60.0}', '') -> 'options' -> 'leaseTime'), '60'::jsonb,
          'an integral number with a fraction part is accepted');
SELECT is((SELECT count(*) FROM queen.queues WHERE name = 't_cfg'), 1::bigint, 'configure never duplicates a queue');

SELECT throws_ok($$SELECT queen.configure_queue(NULL, NULL, NULL, '{}', '')$$, '22023', 'queue is required', 'missing queue name is 22023');
SELECT throws_ok($$SELECT queen.configure_queue('', NULL, NULL, '{}', '')$$, '22023', 'queue is required', 'empty queue name is 22023');
SELECT throws_ok($$SELECT queen.configure_queue(repeat('x', 256), NULL, NULL, '{}', '')$$, '22023', NULL, 'a name over 255 characters is 22023');
SELECT throws_ok($$SELECT queen.configure_queue('t_cfg', NULL, NULL, '{"leaseTime": "300"}', '')$$, '22023',
                 'option leaseTime must be an integer, got "300"', 'a string for an integer option is 22023');
SELECT throws_ok($$SELECT queen.configure_queue('t_cfg', NULL, NULL, '{"retryLimit": 1.5}', '')$$, '22023', NULL, 'a fraction is 22023');
SELECT throws_ok($$SELECT queen.configure_queue('t_cfg', NULL, NULL, '{"ttl": 99999999999}', '')$$, '22023', NULL, 'out of int range is 22023');
SELECT throws_ok($$SELECT queen.configure_queue('t_cfg', NULL, NULL, '{"retryDelay": -1}', '')$$, '22023', NULL, 'a negative duration is 22023');
SELECT throws_ok($$SELECT queen.configure_queue('t_cfg', NULL, NULL, '{"encryptionEnabled": 1}', '')$$, '22023',
                 'option encryptionEnabled must be a boolean, got 1', 'a number for a boolean option is 22023');
SELECT throws_ok($$SELECT queen.configure_queue('t_cfg', NULL, NULL, '{"retentionEnabled": "true"}', '')$$, '22023', NULL,
                 'a string for a boolean option is 22023');
SELECT throws_ok($$SELECT queen.configure_queue('t_cfg', NULL, NULL, '[1]', '')$$, '22023', 'options must be an object', 'options must be an object');

SELECT * FROM finish();
ROLLBACK;
