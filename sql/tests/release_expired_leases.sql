-- pgTAP: queen.release_expired_leases
BEGIN;
CREATE EXTENSION IF NOT EXISTS pgtap;
SELECT plan(6);

-- only this test's rows matter: start from no leases at all
UPDATE queen.consumers SET lease_id = NULL, lease_expires_at = NULL WHERE lease_id IS NOT NULL;
SELECT queen.configure_queue('t_rel', NULL, NULL, '{"retryDelay": 2000}');
SELECT count(*) FROM queen.push_messages('[{"queue": "t_rel", "partition": "A"}, {"queue": "t_rel", "partition": "B"}]');
CREATE TEMP TABLE a AS SELECT * FROM queen.pop_messages('t_rel', 'A', NULL, 1);
CREATE TEMP TABLE b AS SELECT * FROM queen.pop_messages('t_rel', 'B', NULL, 1);
UPDATE queen.consumers SET lease_expires_at = now() - interval '1 second' WHERE lease_id = (SELECT lease_id FROM a);

SELECT is(queen.release_expired_leases(), 1, 'one expired lease cleared');
SELECT is((SELECT lease_id FROM queen.consumers WHERE partition_id = (SELECT partition_id FROM a)), NULL, 'its lease id is gone');
SELECT is((SELECT available_at FROM queen.consumers WHERE partition_id = (SELECT partition_id FROM a)), now() + interval '1 second',
          'the retryDelay gate of the expiry is kept (expiry + 2 s)');
SELECT is((SELECT lease_id FROM queen.consumers WHERE partition_id = (SELECT partition_id FROM b)), (SELECT lease_id FROM b), 'a live lease is untouched');
SELECT is(queen.release_expired_leases(), 0, 'nothing left to clear');
SELECT is((SELECT retry_count FROM queen.consumers WHERE partition_id = (SELECT partition_id FROM a)), 0, 'expiry is not a failure');

SELECT * FROM finish();
ROLLBACK;
