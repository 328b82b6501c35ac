-- pgTAP: the p_tenant argument of every procedure that names a queue, a lease or a key
-- (docs/tenants.md): two tenants with a queue of the same name never see each other's rows,
-- the default tenant is passed as '', and no API procedure has a default for p_tenant.
BEGIN;
CREATE EXTENSION IF NOT EXISTS pgtap;
SELECT plan(51);

-- the same queue name in the default tenant and in acme
SELECT count(*) FROM queen.push_messages('[{"queue": "t_ten", "transactionId": "d1", "payload": {"who": "default"}}]', 'dora', '');
SELECT count(*) FROM queen.push_messages('[{"queue": "t_ten", "transactionId": "a1", "payload": {"who": "acme"}},
                                           {"queue": "t_ten", "transactionId": "a2", "payload": {"who": "acme"}}]', 'alice', 'acme');
SELECT is((SELECT array_agg(tenant::text ORDER BY tenant) FROM queen.queues WHERE name = 't_ten'), ARRAY['', 'acme'],
          'push creates one queue per tenant under the same name');
SELECT is((SELECT status FROM queen.push_messages('[{"queue": "t_ten", "transactionId": "d1"}]', NULL, 'acme')), 'queued',
          'dedup is per tenant: d1 of the default tenant does not make acme''s d1 a duplicate');
SELECT is((SELECT status FROM queen.push_messages('[{"queue": "t_ten", "transactionId": "d1"}]', NULL, '')), 'duplicate',
          'push without p_tenant is the default tenant''s (d1 is a duplicate there)');
SELECT throws_ok($$SELECT * FROM queen.push_messages('[{"queue": "q"}]', NULL, repeat('t', 256))$$, '22023', NULL,
                 'a tenant over 255 characters is 22023');
SELECT is(queen_internal.tenant_arg(NULL), '', 'a null tenant is the default tenant');

-- pop sees only the caller's queue
CREATE TEMP TABLE pd AS SELECT * FROM queen.pop_messages('t_ten', NULL, NULL, 10, 1, false, NULL, NULL, NULL, NULL, '');
CREATE TEMP TABLE pa AS SELECT * FROM queen.pop_messages('t_ten', NULL, NULL, 10, p_tenant => 'acme', p_partitions => 1, p_auto_ack => false, p_subscription_mode => NULL, p_subscription_from => NULL, p_namespace => NULL, p_task => NULL);
SELECT is((SELECT array_agg(transaction_id ORDER BY transaction_id) FROM pd), ARRAY['d1'], 'default pop: default messages only');
SELECT is((SELECT array_agg(transaction_id ORDER BY transaction_id) FROM pa), ARRAY['a1', 'a2', 'd1'], 'acme pop: acme messages only');
SELECT is((SELECT array_agg(DISTINCT producer_sub) FROM pa WHERE transaction_id <> 'd1'), ARRAY['alice'], 'pop returns the producer subject stamped at push');
SELECT is((SELECT count(*) FROM queen.pop_messages('t_ten', NULL, 'g', 10, p_tenant => 'globex', p_partitions => 1, p_auto_ack => false, p_subscription_mode => NULL, p_subscription_from => NULL, p_namespace => NULL, p_task => NULL)), 0::bigint,
          'a tenant without the queue pops nothing');

-- ack and lease extension by partitionId/leaseId: another tenant's lease and message are not found
SELECT is((SELECT row(success, error)::text FROM queen.ack_messages(
             (SELECT jsonb_agg(jsonb_build_object('transactionId', transaction_id, 'partitionId', partition_id, 'leaseId', lease_id)) FROM pa WHERE transaction_id = 'a1'), NULL, '')),
          '(f,"Message not found")', 'the default tenant cannot ack acme''s message');
SELECT is((SELECT row(success, error)::text FROM queen.ack_messages(
             (SELECT jsonb_agg(jsonb_build_object('transactionId', transaction_id, 'partitionId', partition_id, 'leaseId', lease_id)) FROM pa WHERE transaction_id = 'a1'), NULL, 'globex')),
          '(f,"Message not found")', 'nor can globex');
SELECT is((SELECT c.lease_id IS NOT NULL FROM queen.consumers c WHERE c.partition_id = (SELECT partition_id FROM pa LIMIT 1)), true,
          '... and acme''s lease is still held');
SELECT is((SELECT row(success, error)::text FROM queen.extend_lease((SELECT lease_id FROM pa LIMIT 1), 30, '')), '(f,"Lease not found")',
          'extend_lease of another tenant''s lease: not found');
SELECT is((SELECT success FROM queen.extend_lease((SELECT lease_id FROM pa LIMIT 1), 30, 'acme')), true,
          'extend_lease by the owner');
SELECT is((SELECT row(success, dlq)::text FROM queen.ack_messages(
             (SELECT jsonb_agg(jsonb_build_object('transactionId', transaction_id, 'partitionId', partition_id, 'leaseId', lease_id, 'status', 'dlq', 'error', 'bad')) FROM pa WHERE transaction_id = 'a2'), NULL, 'acme')),
          '(t,t)', 'acme dead-letters a2');
SELECT is((SELECT bool_and(success) FROM queen.ack_messages(
             (SELECT jsonb_agg(jsonb_build_object('transactionId', transaction_id, 'partitionId', partition_id, 'leaseId', lease_id)) FROM pa WHERE transaction_id <> 'a2'), NULL, 'acme')),
          true, 'acme acks its own messages');

-- DLQ listing
SELECT is((SELECT array_agg(transaction_id || '/' || coalesce(producer_sub, '-')) FROM queen.list_dlq('t_ten', p_tenant => 'acme', p_group => NULL, p_partition => NULL, p_from => NULL, p_to => NULL, p_limit => 100, p_offset => 0)), ARRAY['a2/alice'],
          'acme''s DLQ lists its dead letter with the producer subject');
SELECT is((SELECT count(*) FROM queen.list_dlq('t_ten', NULL, NULL, NULL, NULL, 100, 0, '')), 0::bigint, 'the default tenant''s DLQ of the same queue name is empty');
SELECT is((SELECT count(*) FROM queen.list_dlq(NULL,NULL,NULL,NULL,NULL,100,0,'')), (SELECT count(*) FROM queen.list_dlq(NULL,NULL,NULL,NULL,NULL,100,0,'') WHERE queue_name <> 't_ten'),
          'an unfiltered default listing shows no acme entry');

-- transactions: acks are tenant-checked, pushes land in the caller's queue with its producer
SELECT is((SELECT (queen.run_transaction(jsonb_build_object('operations', jsonb_build_array(
             jsonb_build_object('type', 'ack', 'transactionId', 'd1', 'partitionId', (SELECT partition_id FROM pd)))), NULL, '') ->> 'error')),
          NULL, 'the default tenant acks its own message in a transaction');
SELECT is((SELECT (queen.run_transaction(jsonb_build_object('operations', jsonb_build_array(
             jsonb_build_object('type', 'ack', 'transactionId', 'd1', 'partitionId', (SELECT partition_id FROM pd)))), NULL, 'acme') ->> 'error')),
          'ACK operation failed: Message not found', 'acme cannot ack the default tenant''s message in a transaction');
SELECT is((SELECT (queen.run_transaction(jsonb_build_object('requiredLeases', jsonb_build_array((SELECT lease_id FROM pd LIMIT 1)),
             'operations', jsonb_build_array(jsonb_build_object('type', 'push', 'items', '[{"queue": "t_ten"}]'::jsonb))), NULL, 'acme') ->> 'success')),
          'false', 'a required lease of another tenant is not held');
SELECT is((SELECT (queen.run_transaction('{"operations": [{"type": "push", "items": [{"queue": "t_ten", "transactionId": "tx1"}]}]}', 'trent', 'acme') ->> 'success')),
          'true', 'acme pushes in a transaction');
SELECT is((SELECT row(q.tenant, m.producer_sub)::text FROM queen.stored_messages m JOIN queen.partitions p ON p.id = m.partition_id
             JOIN queen.queues q ON q.id = p.queue_id WHERE m.transaction_id = 'tx1'), '(acme,trent)',
          '... into acme''s queue, stamped with the transaction''s producer');

-- configure
SELECT is((queen.configure_queue('t_ten', NULL, NULL, '{"retryLimit": 7}', 'acme') -> 'options' ->> 'retryLimit'), '7', 'acme configures its queue');
SELECT is((SELECT retry_limit FROM queen.queues WHERE name = 't_ten' AND tenant = ''), 3, '... the default tenant''s queue keeps its options');
CREATE TEMP TABLE cfg AS SELECT (queen.configure_queue('t_cfg', NULL, NULL, '{}', '') ->> 'queueId')::uuid AS id;
SELECT is((SELECT id FROM cfg), (SELECT id FROM queen.queues WHERE name = 't_cfg' AND tenant = ''),
          'configure without p_tenant creates the default tenant''s queue');

-- namespace/task pops see only the caller's queues; filter subscriptions are per tenant
SELECT count(*) FROM queen.push_messages('[{"queue": "t_nsx.work", "transactionId": "n1"}]', NULL, '');
SELECT count(*) FROM queen.push_messages('[{"queue": "t_nsx.work", "transactionId": "n2"}]', NULL, 'acme');
SELECT is((SELECT array_agg(transaction_id) FROM queen.pop_messages(NULL, NULL, 'gf', 10, 5, false, p_namespace => 't_nsx', p_tenant => 'acme', p_subscription_mode => NULL, p_subscription_from => NULL, p_task => NULL)),
          ARRAY['n2'], 'a namespace pop sees only the tenant''s queues');
SELECT is((SELECT array_agg(transaction_id) FROM queen.pop_messages(NULL, NULL, 'gf', 10, 5, false, p_namespace => 't_nsx', p_subscription_mode => NULL, p_subscription_from => NULL, p_task => NULL, p_tenant => '')),
          ARRAY['n1'], '... and the default tenant only its own');
SELECT count(*) FROM queen.pop_messages(NULL, NULL, 'gsub', 10, 5, false, 'new', p_namespace => 't_nsx', p_tenant => 'acme', p_subscription_from => NULL, p_task => NULL);
SELECT is((SELECT array_agg(tenant::text) FROM queen.subscriptions WHERE consumer_group = 'gsub'), ARRAY['acme'],
          'a filter subscription record belongs to the tenant');

-- timers: scheduled and fired in the tenant's queue with the producer
SELECT count(*) FROM queen.push_messages(jsonb_build_array(jsonb_build_object('queue', 't_tim', 'transactionId', 'tm1',
                                          'deliverAt', (now() + interval '1 hour')::text)), 'tina', 'acme');
SELECT is((SELECT row(tenant, producer_sub)::text FROM queen.timers WHERE transaction_id = 'tm1'), '(acme,tina)', 'a timer records the tenant');
SELECT is((SELECT status FROM queen.push_messages(jsonb_build_array(jsonb_build_object('queue', 't_tim', 'transactionId', 'tm1',
             'deliverAt', (now() + interval '1 hour')::text)), NULL, '')), 'queued', 'the default tenant''s timer of the same key is its own');
SELECT is(queen.fire_timers('s1', ARRAY(SELECT c FROM queen.claim_due_timers('s1', 10, 60000, now() + interval '2 hours') c), now() + interval '2 hours'),
          2, 'both timers fire');
SELECT is((SELECT array_agg(row(q.tenant, m.producer_sub)::text ORDER BY q.tenant) FROM queen.stored_messages m JOIN queen.partitions p ON p.id = m.partition_id
             JOIN queen.queues q ON q.id = p.queue_id WHERE q.name = 't_tim'), ARRAY['("",)', '(acme,tina)'],
          '... each into its tenant''s queue with its producer');

-- KV: the same key per tenant
SELECT queen.kv_set('t_key', '"default"', NULL, '');
SELECT queen.kv_set('t_key', '"acme"', p_tenant => 'acme', p_ttl_ms => NULL);
SELECT is((SELECT value FROM queen.kv_get('t_key', '')), '"default"'::jsonb, 'kv_get without p_tenant reads the default tenant''s key');
SELECT is((SELECT value FROM queen.kv_get('t_key', 'acme')), '"acme"'::jsonb, 'acme reads its own value');
SELECT is((SELECT count(*) FROM queen.kv_get('t_key', 'globex')), 0::bigint, 'another tenant does not see the key');
SELECT is(queen.kv_delete('t_key', 'acme'), true, 'acme deletes its key');
SELECT is((SELECT value FROM queen.kv_get('t_key', '')), '"default"'::jsonb, '... the default tenant''s survives');

-- delete_queue
SELECT is(queen.delete_queue('t_ten', 'globex'), false, 'a tenant without the queue deletes nothing');
SELECT is(queen.delete_queue('t_ten', 'acme'), true, 'acme deletes its queue');
SELECT is((SELECT array_agg(tenant::text) FROM queen.queues WHERE name = 't_ten'), ARRAY[''], '... the default tenant''s queue of that name survives');

-- quotas: a DBA's overrides and the pending count brokers read
SELECT queen.set_tenant_quota('acme', 100, 5.5, 10);
SELECT queen.reconcile_stats(1000);
SELECT is((SELECT row(max_pending, push_rate, push_burst, pending)::text FROM queen.tenant_quota_state('acme')), '(100,5.5,10,2)',
          'tenant_quota_state: the overrides and the pending messages of acme''s queues (t_nsx.work and t_tim)');
SELECT is((SELECT row(max_pending, push_rate, push_burst, pending, counted_at)::text FROM queen.tenant_quota_state('nobody')), '(,,,0,)',
          'a tenant without overrides or queues: nulls and 0');
SELECT throws_ok($$SELECT queen.set_tenant_quota('acme', -1)$$, '22023', NULL, 'a negative quota is 22023');
SELECT queen.set_tenant_quota('acme');
SELECT is((SELECT count(*) FROM queen.tenant_quotas WHERE tenant = 'acme'), 0::bigint, 'all nulls removes the overrides');
SELECT queen.set_tenant_quota(NULL, 0);
SELECT is((SELECT max_pending FROM queen.tenant_quota_state('')), 0::bigint, 'the default tenant has overrides too (0 = unlimited)');

-- Every call names its tenant (docs/procedures.md): no function of schema queen has a default for
-- p_tenant (the queen_internal helpers of release 1.0.0 keep theirs; only procedures call them).
SELECT is((SELECT array_agg(p.oid::regprocedure::text ORDER BY p.oid::regprocedure::text)
             FROM pg_proc p
             JOIN pg_namespace n ON n.oid = p.pronamespace AND n.nspname = 'queen'
             CROSS JOIN LATERAL (
               SELECT array_agg(u.name ORDER BY u.ord) AS names
                 FROM unnest(p.proargnames, coalesce(p.proargmodes, array_fill('i'::"char",
                                                     ARRAY[coalesce(cardinality(p.proargnames), 0)])))
                      WITH ORDINALITY AS u(name, mode, ord)
                WHERE u.mode IN ('i', 'b', 'v')) inputs
            WHERE array_position(inputs.names, 'p_tenant') > p.pronargs - p.pronargdefaults),
          NULL, 'no API procedure of schema queen has a default for p_tenant');
SELECT is((SELECT pronargdefaults FROM pg_proc WHERE oid = 'queen.tenant_usage_of(text)'::regprocedure), 0::smallint,
          'queen.tenant_usage_of has no default for its tenant');
SELECT throws_ok($$SELECT * FROM queen.tenant_usage_of()$$, '42883', NULL,
                 'queen.tenant_usage_of without a tenant is no call (42883): the default tenant is passed as ''''');
SELECT is((SELECT queues FROM queen.tenant_usage_of('')), (SELECT count(*) FROM queen.queues WHERE tenant = ''),
          'queen.tenant_usage_of('''') counts the default tenant''s queues');

SELECT * FROM finish();
ROLLBACK;
