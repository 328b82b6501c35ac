-- Verify queen:tenant_quotas on pg
BEGIN;
SELECT tenant, max_pending, push_rate, push_burst, updated_at FROM queen.tenant_quotas WHERE false;
SELECT has_function_privilege('queen.set_tenant_quota(text, bigint, double precision, int)', 'execute');
SELECT has_function_privilege('queen.tenant_quota_state(text)', 'execute');
ROLLBACK;
