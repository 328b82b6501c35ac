-- Revert queen:rules from pg
BEGIN;
DROP FUNCTION queen.tenant_arg(text);
DROP DOMAIN queen.tenant_text;
DROP FUNCTION queen.iso_millis(timestamptz);
DROP FUNCTION queen.check_at_least(text, bigint, bigint);
DROP FUNCTION queen.name_problem(text);
DROP DOMAIN queen.name_text;
DROP FUNCTION queen.name_max_chars();
COMMIT;
