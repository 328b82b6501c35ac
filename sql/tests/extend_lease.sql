-- pgTAP: queen.extend_lease
BEGIN;
CREATE EXTENSION IF NOT EXISTS pgtap;
SELECT plan(11);

SELECT queen.configure_queue('t_ext', NULL, NULL, '{"leaseTime": 30}', '');
SELECT count(*) FROM queen.push_messages('[{"queue": "t_ext", "partition": "A"}, {"queue": "t_ext", "partition": "B"}]', NULL, '');
CREATE TEMP TABLE popped AS SELECT * FROM queen.pop_messages('t_ext', NULL, NULL, 10, 2, false, NULL, NULL, NULL, NULL, '');
SELECT is((SELECT count(DISTINCT partition_id) FROM popped), 2::bigint, 'one pop leased two partitions');

CREATE TEMP TABLE e1 AS SELECT * FROM queen.extend_lease((SELECT lease_id FROM popped LIMIT 1), 120, '');
SELECT is((SELECT row(success, expires_at, error)::text FROM e1), row(true, now() + interval '120 seconds', NULL::text)::text,
          'extend: success and the new expiry');
SELECT is((SELECT array_agg(DISTINCT lease_expires_at) FROM queen.consumers WHERE lease_id = (SELECT lease_id FROM popped LIMIT 1)),
          ARRAY[now() + interval '120 seconds'], 'every partition of the lease is extended');
SELECT is((SELECT expires_at FROM queen.extend_lease((SELECT lease_id FROM popped LIMIT 1), 10, '')), now() + interval '120 seconds',
          'a shorter extension never shortens the lease (max)');
SELECT is((SELECT expires_at FROM queen.extend_lease((SELECT lease_id FROM popped LIMIT 1), 60, '')), now() + interval '120 seconds',
          'the default is 60 seconds (still below the current expiry)');
SELECT is((SELECT row(lease_count, lease_acked, cursor_seq, retry_count)::text FROM queen.consumers c JOIN queen.partitions p ON p.id = c.partition_id
            WHERE c.lease_id = (SELECT lease_id FROM popped LIMIT 1) AND p.name = 'A'), '(1,0,0,0)', 'n, k, cursor and retries untouched');

SELECT is((SELECT row(success, expires_at, error)::text FROM queen.extend_lease(gen_random_uuid(), 60, '')), '(f,,"Lease not found")', 'unknown lease');
SELECT is((SELECT row(success, expires_at, error)::text
             FROM queen.extend_lease((SELECT lease_id FROM popped LIMIT 1), 60, p_now => now() + interval '120 seconds', p_tenant => '')),
          '(f,,"Lease already expired")', 'an expired lease is not revived (extended at its expiry)');
SELECT is((SELECT count(*) FROM queen.consumers WHERE lease_id = (SELECT lease_id FROM popped LIMIT 1)
              AND lease_expires_at > now() + interval '120 seconds'), 0::bigint,
          '... and stays expired');
SELECT throws_ok($$SELECT * FROM queen.extend_lease(gen_random_uuid(), 0, '')$$, '22023', NULL, 'seconds < 1 is 22023');
SELECT is((SELECT error FROM queen.extend_lease(NULL, 60, '')), 'Lease not found', 'a null lease id is not found');

SELECT * FROM finish();
ROLLBACK;
