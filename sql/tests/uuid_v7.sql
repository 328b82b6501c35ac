-- pgTAP: queen_internal.uuid_v7
BEGIN;
CREATE EXTENSION IF NOT EXISTS pgtap;
SELECT plan(9);

SELECT is(substring(queen_internal.uuid_v7()::text FROM 15 FOR 1), '7', 'version nibble is 7');
SELECT ok(substring(queen_internal.uuid_v7()::text FROM 20 FOR 1) IN ('8', '9', 'a', 'b'), 'variant bits are 10');
SELECT is(('x' || replace(substring(queen_internal.uuid_v7('2025-03-04 09:15:26.123+00')::text FROM 1 FOR 13), '-', ''))::bit(48)::bigint,
          1741079726123::bigint, 'the first 48 bits are the Unix time in milliseconds');
SELECT ok(queen_internal.uuid_v7('2025-03-04 09:15:26.123+00') < queen_internal.uuid_v7('2025-03-04 09:15:26.124+00'),
          'a later millisecond sorts later');
SELECT isnt(queen_internal.uuid_v7('2025-03-04 09:15:26.123+00'), queen_internal.uuid_v7('2025-03-04 09:15:26.123+00'),
            'two ids of the same millisecond differ (random tail)');
SELECT is((SELECT count(DISTINCT queen_internal.uuid_v7()) FROM generate_series(1, 1000)), 1000::bigint, '1000 ids are distinct');

SELECT is(substring(queen_internal.uuid_v7_ordinal(now(), 5)::text FROM 15 FOR 1), '7', 'ordinal ids keep version 7');
SELECT ok(substring(queen_internal.uuid_v7_ordinal(now(), 262143)::text FROM 20 FOR 1) IN ('8', '9', 'a', 'b'), 'ordinal ids keep the variant bits');
SELECT is((SELECT count(*) FROM (SELECT o, queen_internal.uuid_v7_ordinal('2025-03-04 09:15:26.123+00', o) AS id
                                    FROM generate_series(0, 2999) o) s
            WHERE id < (SELECT queen_internal.uuid_v7_ordinal('2025-03-04 09:15:26.123+00', s.o + 1))),
          3000::bigint, 'ids of one timestamp sort in ordinal order');
SELECT * FROM finish();
ROLLBACK;
