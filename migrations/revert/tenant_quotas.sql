-- Revert queen:tenant_quotas from pg
BEGIN;
DROP FUNCTION queen.tenant_quota_state(text);
DROP FUNCTION queen.set_tenant_quota(text, bigint, double precision, int);
DROP TABLE queen.tenant_quotas;
COMMIT;
