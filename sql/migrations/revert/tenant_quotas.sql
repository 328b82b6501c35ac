-- Revert queen:tenant_quotas from pg
BEGIN;
SET LOCAL ROLE queen_owner;  -- the objects' owner (docs/procedures.md, Roles)
DROP FUNCTION queen.tenant_quota_state(text);
DROP FUNCTION queen.set_tenant_quota(text, bigint, double precision, int);
DROP TABLE queen.tenant_quotas;
COMMIT;
