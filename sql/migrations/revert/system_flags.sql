-- Revert queen:system_flags from pg
BEGIN;
SET LOCAL ROLE queen_owner;  -- the objects' owner (docs/procedures.md, Roles)
DROP FUNCTION queen.get_system_flag(text);
DROP FUNCTION queen.set_system_flag(text, bool);
DROP FUNCTION queen_internal.check_system_flag_key(text);
COMMIT;
