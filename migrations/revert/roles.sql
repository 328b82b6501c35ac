-- Revert queen:roles from pg
-- Another database of the cluster may still hold objects of these roles or grants to them: such a role
-- cannot be dropped (2BP01) and is kept; the revert of the last database drops it.
BEGIN;

DO $$
DECLARE
  v_name text;
BEGIN
  FOREACH v_name IN ARRAY ARRAY['queen_admin', 'queen_reader', 'queen_broker', 'queen_owner'] LOOP
    BEGIN
      EXECUTE format('DROP ROLE IF EXISTS %I', v_name);
    EXCEPTION WHEN dependent_objects_still_exist THEN
      RAISE NOTICE 'role % kept: another database of this cluster still uses it', v_name;
    END;
  END LOOP;
END;
$$;

COMMIT;
