-- Verify queen:tenant_usage_no_default on pg (release 1.1.0)
BEGIN;
SELECT has_function_privilege('queen.tenant_usage_of(text)', 'execute');
-- No default for p_tenant: the call names its tenant.
SELECT 1 / (pronargdefaults = 0)::int FROM pg_proc WHERE oid = 'queen.tenant_usage_of(text)'::regprocedure;
ROLLBACK;
