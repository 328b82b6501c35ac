-- Verify queen:release_expired_leases on pg
SELECT has_function_privilege('queen.release_expired_leases(timestamptz)', 'execute');
