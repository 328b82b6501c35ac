-- Verify queen:schema on pg
SELECT 1 / count(*) FROM pg_namespace WHERE nspname = 'queen';
