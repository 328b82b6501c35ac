-- Verify queen:tenant_quotas on pg
BEGIN;
SELECT tenant, max_pending, push_rate, push_burst, updated_at FROM queen.tenant_quotas WHERE false;
-- By name: queen:tenant_usage gives both more quotas (and set_tenant_quota more arguments).
SELECT 'queen.set_tenant_quota'::regproc;
SELECT has_function_privilege('queen.tenant_quota_state(text)', 'execute');
ROLLBACK;
