-- Verify queen:uuid_v7 on pg
SELECT 1 / (substring(queen.uuid_v7()::text FROM 15 FOR 1) = '7')::int;
