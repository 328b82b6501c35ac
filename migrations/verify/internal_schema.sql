-- Verify queen:internal_schema on pg
SELECT 1 / count(*) FROM pg_namespace WHERE nspname = 'queen_internal' AND nspowner = 'queen_owner'::regrole;
SELECT 1 / count(*) FROM pg_default_acl WHERE defaclrole = 'queen_owner'::regrole AND defaclobjtype = 'f';
