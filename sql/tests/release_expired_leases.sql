-- pgTAP: queen.release_expired_leases
BEGIN;
CREATE EXTENSION IF NOT EXISTS pgtap;
SELECT plan(7);

-- only this test's rows matter: start from no leases at all
UPDATE queen.consumers SET lease_id = NULL, lease_expires_at = NULL WHERE lease_id IS NOT NULL;
SELECT queen.configure_queue('t_rel', NULL, NULL, '{"retryDelay": 2000}', '');
SELECT count(*) FROM queen.push_messages('[{"queue": "t_rel", "partition": "A"}, {"queue": "t_rel", "partition": "B"}]', NULL, '');
CREATE TEMP TABLE a AS SELECT * FROM queen.pop_messages('t_rel', 'A', NULL, 1, 1, false, NULL, NULL, NULL, NULL, '');
-- b is popped 10 s later (leaseTime 300 s): at now + 301 s only a's lease has expired
CREATE TEMP TABLE b AS SELECT * FROM queen.pop_messages('t_rel', 'B', NULL, 1, p_now => now() + interval '10 seconds', p_partitions => 1, p_auto_ack => false, p_subscription_mode => NULL, p_subscription_from => NULL, p_namespace => NULL, p_task => NULL, p_tenant => '');

SELECT is(queen.release_expired_leases(now() + interval '299 seconds'), 0, 'no lease has expired yet');
SELECT is(queen.release_expired_leases(now() + interval '301 seconds'), 1, 'one expired lease cleared');
SELECT is((SELECT lease_id FROM queen.consumers WHERE partition_id = (SELECT partition_id FROM a)), NULL, 'its lease id is gone');
SELECT is((SELECT available_at FROM queen.consumers WHERE partition_id = (SELECT partition_id FROM a)), now() + interval '302 seconds',
          'the retryDelay gate of the expiry is kept (expiry + 2 s)');
SELECT is((SELECT lease_id FROM queen.consumers WHERE partition_id = (SELECT partition_id FROM b)), (SELECT lease_id FROM b), 'a live lease is untouched');
SELECT is(queen.release_expired_leases(now() + interval '301 seconds'), 0, 'nothing left to clear');
SELECT is((SELECT retry_count FROM queen.consumers WHERE partition_id = (SELECT partition_id FROM a)), 0, 'expiry is not a failure');

SELECT * FROM finish();
ROLLBACK;
