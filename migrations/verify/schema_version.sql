-- Verify queen:schema_version on pg (release 2.0.0)
-- The function answers a release, major.minor.patch, of at least 1.1.0: this instance runs before the program
-- (`sqitch deploy --verify` checks it then, at 1.1.0) and after it (2.0.0). Which release is the program's text,
-- held to sql/queen/schema_version.sql by tests/schema.
BEGIN;
SELECT 1 / (queen.schema_version() ~ '^[0-9]+\.[0-9]+\.[0-9]+$')::int;
SELECT 1 / (string_to_array(queen.schema_version(), '.')::int[] >= ARRAY[1, 1, 0])::int;
ROLLBACK;
