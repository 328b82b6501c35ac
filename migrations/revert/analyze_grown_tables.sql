-- Revert queen:analyze_grown_tables from pg
BEGIN;
SET LOCAL ROLE queen_owner;
DROP FUNCTION queen.analyze_grown_tables(bigint);
DROP FUNCTION queen_internal.statistics_outgrown(bigint, real, bigint);
COMMIT;
