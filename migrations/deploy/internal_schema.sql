-- Deploy queen:internal_schema to pg
-- The helpers the API procedures are made of. Nobody but their owner may call them: they run inside a
-- SECURITY DEFINER procedure of schema queen, as queen_owner, with that procedure's search_path.
BEGIN;

CREATE SCHEMA queen_internal AUTHORIZATION queen_owner;
COMMENT ON SCHEMA queen_internal IS
  'Queen message broker: the helpers of the procedures of schema queen; callable by their owner only. See docs/procedures.md.';

-- In this database, functions queen_owner creates are not executable by PUBLIC (the built-in default):
-- every EXECUTE is a grant of the grants change, and the grant-matrix test names each function.
ALTER DEFAULT PRIVILEGES FOR ROLE queen_owner REVOKE EXECUTE ON FUNCTIONS FROM PUBLIC;
-- DBAs read every table queen_owner creates in schema queen; nobody else reads or writes them directly.
ALTER DEFAULT PRIVILEGES FOR ROLE queen_owner IN SCHEMA queen GRANT SELECT ON TABLES TO queen_admin;

COMMIT;
