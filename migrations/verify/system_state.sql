-- Verify queen:system_state on pg
SELECT key, value, updated_at FROM queen.system_state WHERE false;
