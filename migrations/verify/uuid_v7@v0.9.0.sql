-- Verify queen:uuid_v7 on pg
SELECT 1 / (substring(queen.uuid_v7()::text FROM 15 FOR 1) = '7')::int;
SELECT 1 / (queen.uuid_v7_ordinal(now(), 1) < queen.uuid_v7_ordinal(now(), 2))::int;
