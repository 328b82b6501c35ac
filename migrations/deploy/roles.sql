-- Deploy queen:roles to pg
-- The four roles of docs/procedures.md (Roles). Roles belong to the cluster, not to a database: a second
-- database on the same cluster finds them made, and two deploys at once may race to create one, so each
-- is created only when missing and a creation that lost the race is not an error.
BEGIN;

DO $$
DECLARE
  r record;
BEGIN
  FOR r IN SELECT * FROM (VALUES
             ('queen_owner', 'NOLOGIN'),   -- owns every object; the identity SECURITY DEFINER procedures run as
             ('queen_broker', 'LOGIN'),    -- what brokers connect as: EXECUTE on the procedures they call
             ('queen_reader', 'NOLOGIN'),  -- dashboards and analysts: the procedures that change nothing
             ('queen_admin', 'NOLOGIN')    -- DBAs: every API procedure, SELECT on the tables
           ) AS v(name, login)
  LOOP
    IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = r.name) THEN
      BEGIN
        EXECUTE format('CREATE ROLE %I %s NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION', r.name, r.login);
      EXCEPTION WHEN duplicate_object OR unique_violation THEN
        NULL;  -- created meanwhile by a deploy into another database of this cluster
      END;
    END IF;
  END LOOP;
  -- Deploy scripts run SET LOCAL ROLE queen_owner: a deployer that is not a superuser must be a member.
  IF NOT (SELECT rolsuper FROM pg_roles WHERE rolname = current_user) THEN
    EXECUTE format('GRANT queen_owner TO %I', current_user);
  END IF;
  -- analytics_postgres_stats counts the database's sessions by state, which pg_stat_activity shows only
  -- to superusers and members of pg_read_all_stats.
  IF NOT pg_has_role('queen_owner', 'pg_read_all_stats', 'MEMBER') THEN
    GRANT pg_read_all_stats TO queen_owner;
  END IF;
END;
$$;

COMMIT;
