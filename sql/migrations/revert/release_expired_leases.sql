-- Revert queen:release_expired_leases from pg
BEGIN;
DROP FUNCTION queen.release_expired_leases(timestamptz);
COMMIT;
