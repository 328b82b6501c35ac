-- Revert queen:rules from pg
BEGIN;
SET LOCAL ROLE queen_owner;  -- the objects' owner (docs/procedures.md, Roles)
DROP FUNCTION queen_internal.tenant_arg(text);
DROP DOMAIN queen.tenant_text;
DROP FUNCTION queen_internal.iso_millis(timestamptz);
DROP FUNCTION queen_internal.check_at_least(text, bigint, bigint);
DROP FUNCTION queen_internal.name_problem(text);
DROP DOMAIN queen.name_text;
DROP FUNCTION queen_internal.name_max_chars();
COMMIT;
