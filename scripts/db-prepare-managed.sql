-- The one step before the first deploy of Queen into a PostgreSQL where nobody is a superuser (a managed
-- PostgreSQL: docs/deploy-managed-postgres.md). Run it once per database, connected to that database, as the
-- provider's administrator login (a CREATEROLE login that owns the database or may grant CREATE on it):
--
--   psql -X -d queen -v deployer=queen_deploy -v broker_password=... -f scripts/db-prepare-managed.sql
--
-- deployer: the login that runs scripts/db-deploy.sh (it must exist); broker_password: optional, the password of
-- the role queen_broker, which brokers log in as. Running it again changes nothing but that password.
--
-- Why: the released change `roles` creates the roles, grants queen_owner to the deploying login and
-- pg_read_all_stats to queen_owner, which a login without CREATEROLE cannot do. Made here beforehand, `roles` finds
-- the roles made and pg_read_all_stats held, and the deploying login may grant queen_owner to itself.

\set ON_ERROR_STOP on

-- The four roles, with the attributes the change `roles` gives them; one that exists (made for another database of
-- this cluster) is kept as it is.
SELECT format('CREATE ROLE %I %s NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION', v.name, v.login)
  FROM (VALUES ('queen_owner', 'NOLOGIN'), ('queen_broker', 'LOGIN'), ('queen_reader', 'NOLOGIN'),
               ('queen_admin', 'NOLOGIN')) AS v(name, login)
 WHERE NOT EXISTS (SELECT FROM pg_roles r WHERE r.rolname = v.name)
\gexec

\if :{?broker_password}
ALTER ROLE queen_broker PASSWORD :'broker_password';
\endif

-- The deploy creates its schemas in this database (queen, queen_internal and sqitch's registry) and runs each script
-- as queen_owner (SET LOCAL ROLE); the change `roles` grants queen_owner to the deploying login again, which a login
-- without CREATEROLE may do only WITH ADMIN OPTION.
SELECT format('GRANT CREATE ON DATABASE %I TO %I', current_database(), :'deployer')
\gexec
GRANT queen_owner TO :"deployer" WITH ADMIN OPTION;

-- analytics_postgres_stats, run as queen_owner, counts the database's sessions by state, which pg_stat_activity
-- shows of other logins' sessions to members of pg_read_all_stats only; the change `roles` grants it unless held.
GRANT pg_read_all_stats TO queen_owner;
