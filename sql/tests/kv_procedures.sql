-- pgTAP: the KV store (queen.kv_set / kv_get / kv_delete / kv_prune_expired).
BEGIN;
CREATE EXTENSION IF NOT EXISTS pgtap;
SELECT plan(29);

-- Isolate from rows other sessions may have stored in a shared database.
DELETE FROM queen.kv;

-- set / get without TTL
SELECT is(queen.kv_set('k1', '{"a": 1}', NULL, ''), NULL::timestamptz, 'kv_set without TTL returns a null expiresAt');
SELECT results_eq($$SELECT value, expires_at FROM queen.kv_get('k1', '')$$,
                  $$VALUES ('{"a": 1}'::jsonb, NULL::timestamptz)$$, 'kv_get returns the stored value');
SELECT is((SELECT count(*)::int FROM queen.kv_get('absent', '')), 0, 'an absent key reads as no row');

-- any JSON value, JSON null included
SELECT lives_ok($$SELECT queen.kv_set('k-null', 'null'::jsonb, NULL, '')$$, 'JSON null is a storable value');
SELECT is((SELECT value FROM queen.kv_get('k-null', '')), 'null'::jsonb, 'JSON null reads back as JSON null');
SELECT lives_ok($$SELECT queen.kv_set('k-arr', '[1, "two", 3.5]', NULL, '')$$, 'an array is storable');
SELECT is((SELECT value FROM queen.kv_get('k-arr', '')), '[1, "two", 3.5]'::jsonb, 'an array reads back unchanged');

-- overwrite replaces value and TTL
SELECT isnt(queen.kv_set('k1', '"v2"', 60000, ''), NULL::timestamptz, 'kv_set with a TTL returns expiresAt');
SELECT ok((SELECT expires_at BETWEEN clock_timestamp() + interval '55 s' AND clock_timestamp() + interval '61 s'
             FROM queen.kv_get('k1', '')), 'expiresAt is now + ttlMs');
SELECT is((SELECT value FROM queen.kv_get('k1', '')), '"v2"'::jsonb, 'kv_set overwrites the value');
SELECT is(queen.kv_set('k1', '"v3"', NULL, ''), NULL::timestamptz, 'kv_set without TTL clears a previous TTL');
SELECT is((SELECT expires_at FROM queen.kv WHERE key = 'k1'), NULL::timestamptz, 'the stored TTL is cleared');

-- TTL expiry: an expired key reads as absent before any prune
SELECT queen.kv_set('k-short', '1', 50, '');
SELECT is((SELECT count(*)::int FROM queen.kv_get('k-short', '')), 1, 'a key is readable before its TTL passes');
SELECT is((SELECT count(*)::int FROM queen.kv_get('k-short', p_now => (SELECT expires_at FROM queen.kv WHERE key = 'k-short'), p_tenant => '')), 0,
          'an expired key reads as absent (read at its expiry)');
SELECT is((SELECT count(*)::int FROM queen.kv WHERE key = 'k-short'), 1, '... while its row still exists');
SELECT queen.kv_set('k-zero', '1', 0, '');
SELECT is((SELECT count(*)::int FROM queen.kv_get('k-zero', '')), 0, 'ttlMs 0 expires at once');

-- delete
SELECT is(queen.kv_delete('k-arr', ''), true, 'kv_delete of a live key answers true');
SELECT is((SELECT count(*)::int FROM queen.kv_get('k-arr', '')), 0, 'a deleted key reads as absent');
SELECT is(queen.kv_delete('k-arr', ''), false, 'kv_delete of an absent key answers false');
SELECT is(queen.kv_delete('k-zero', ''), false, 'kv_delete of an expired key answers false');
SELECT is((SELECT count(*)::int FROM queen.kv WHERE key = 'k-zero'), 0, '... and removes its row');

-- prune: only expired rows, bounded by the limit
SELECT queen.kv_set('p' || i, to_jsonb(i), 0, '') FROM generate_series(1, 5) i;
SELECT is(queen.kv_prune_expired(3), 3, 'kv_prune_expired deletes at most p_limit rows');
SELECT is(queen.kv_prune_expired(100, clock_timestamp() + interval '1 second'), 3,
          'the next call, a second later, deletes the rest (2 p* and k-short)');
SELECT is((SELECT array_agg(key::text ORDER BY key) FROM queen.kv), ARRAY['k-null', 'k1'], 'live rows survive pruning');

-- validation
SELECT throws_ok($$SELECT queen.kv_set('', '1', NULL, '')$$, '22023', NULL, 'an empty key is rejected with 22023');
SELECT throws_ok(format('SELECT queen.kv_get(%L, '''')', repeat('x', 256)), '22023', NULL, 'a key over 255 characters is rejected');
SELECT throws_ok($$SELECT queen.kv_set('k', '1', -1, '')$$, '22023', NULL, 'a negative TTL is rejected with 22023');
SELECT throws_ok($$SELECT queen.kv_set('k', NULL, NULL, '')$$, '22023', NULL, 'an SQL NULL value is rejected (JSON null is the way)');
SELECT throws_ok($$SELECT queen.kv_prune_expired(0)$$, '22023', NULL, 'a prune limit below 1 is rejected');

SELECT * FROM finish();
ROLLBACK;
