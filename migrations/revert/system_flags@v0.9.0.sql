-- Revert queen:system_flags from pg
BEGIN;
DROP FUNCTION queen.get_system_flag(text);
DROP FUNCTION queen.set_system_flag(text, bool);
DROP FUNCTION queen.check_system_flag_key(text);
COMMIT;
