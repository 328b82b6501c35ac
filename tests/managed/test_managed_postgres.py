"""Queen on a PostgreSQL where nobody of the customer's is a superuser (docs/deploy-managed-postgres.md).

The cluster (conftest.py) is set up as hosted PostgreSQL is: TLS with a certificate of the suite's own CA, a password
over TLS for every login, and an administrator login with CREATEROLE and CREATEDB. The customer's side, in order:
 1. the administrator creates the database and runs scripts/db-prepare-managed.sql in it: the only step a deploy on
    such a cluster adds, and the only one done by a login with a role attribute;
 2. the deploying login, with no role attribute and none of the server-file roles, runs scripts/db-deploy.sh over
    TLS (verify-full);
 3. a broker logs in as queen_broker over TLS and serves push, pop and ack;
 and, on a second database, the previous release deployed by the same login with sqitch, served by its broker, then
 upgraded by scripts/db-deploy.sh to this tree and served by this tree's broker.
"""
import os
import re

import pytest

from harness import ack_item, unique_name
from harness import env as harness_env
from managed_support import ADMIN, DEPLOYER

# The predefined roles that reach the server's files and programs: what a managed provider never hands out.
SERVER_FILE_ROLES = ("pg_read_server_files", "pg_write_server_files", "pg_execute_server_program")
QUEEN_ROLES = ("queen_owner", "queen_broker", "queen_reader", "queen_admin")
MESSAGES = 6


def role_attributes(managed, role):
    return managed.superuser.query("""
        select rolsuper, rolcreaterole, rolcreatedb, rolreplication, rolbypassrls, rolcanlogin
        from pg_roles where rolname = :'role'""", role=role)[0]


def memberships(managed, role):
    """Every role `role` is a member of, directly or through another (sorted names)."""
    return managed.superuser.scalar("""
        select coalesce(array_agg(rolname::text order by rolname), '{}') as roles from pg_roles
        where rolname <> :'role' and pg_has_role(:'role', oid, 'MEMBER')""", role=role)


def assert_no_superuser_power(managed):
    """The logins of the customer's side hold nothing a managed provider keeps to itself, before and after a deploy:
    a change of the plan that needs more fails the deploy instead of this check being loosened."""
    admin = role_attributes(managed, ADMIN)
    assert admin["rolsuper"] is False and admin["rolreplication"] is False and admin["rolbypassrls"] is False
    deployer = role_attributes(managed, DEPLOYER)
    assert deployer == {"rolsuper": False, "rolcreaterole": False, "rolcreatedb": False, "rolreplication": False,
                        "rolbypassrls": False, "rolcanlogin": True}
    # The deploying login reaches queen_owner (whose scripts run as it) and, through it, pg_read_all_stats: nothing
    # else, and none of the server-file roles by any path.
    assert memberships(managed, DEPLOYER) == ["pg_read_all_stats", "queen_owner"]
    assert memberships(managed, "queen_owner") == ["pg_read_all_stats"]
    for role in (DEPLOYER, ADMIN) + QUEEN_ROLES:
        for file_role in SERVER_FILE_ROLES:
            assert managed.superuser.scalar("select pg_has_role(:'role', :'file_role', 'MEMBER') as member",
                                            role=role, file_role=file_role) is False, (role, file_role)
    for role in QUEEN_ROLES:
        attributes = role_attributes(managed, role)
        assert attributes["rolsuper"] is False and attributes["rolcreaterole"] is False, role
        assert attributes["rolcreatedb"] is False and attributes["rolbypassrls"] is False, role
    assert memberships(managed, "queen_broker") == []


def assert_deployed(managed, dbname):
    """The whole plan is deployed, its objects belong to queen_owner, and the release is this tree's."""
    deployer = managed.deployer(dbname)
    assert "Nothing to deploy (up-to-date)" in deployer.sqitch("status")
    assert deployer.scalar("select queen.schema_version() as v") == harness_env.project_version()
    owners = managed.superuser.with_db(dbname).query("""
        select nspname as schema, nspowner::regrole::text as owner from pg_namespace
        where nspname in ('queen', 'queen_internal', 'sqitch') order by nspname""")
    assert owners == [{"schema": "queen", "owner": "queen_owner"},
                      {"schema": "queen_internal", "owner": "queen_owner"},
                      {"schema": "sqitch", "owner": DEPLOYER}]
    foreign = managed.superuser.with_db(dbname).query("""
        select c.oid::regclass::text as object, c.relowner::regrole::text as owner from pg_class c
        where c.relnamespace in ('queen'::regnamespace, 'queen_internal'::regnamespace)
          and c.relowner <> 'queen_owner'::regrole
        union all
        select p.oid::regprocedure::text, p.proowner::regrole::text from pg_proc p
        where p.pronamespace in ('queen'::regnamespace, 'queen_internal'::regnamespace)
          and p.proowner <> 'queen_owner'::regrole""")
    assert foreign == []


def broker_sessions_on_tls(managed, dbname):
    """(sessions of queen_broker on the database, how many of them are on TLS)."""
    row = managed.superuser.query("""
        select count(*) as sessions, count(*) filter (where s.ssl) as on_tls
        from pg_stat_activity a join pg_stat_ssl s on s.pid = a.pid
        where a.usename = 'queen_broker' and a.datname = :'db'""", db=dbname)[0]
    return row["sessions"], row["on_tls"]


def push(client, queue, names):
    items = [{"queue": queue, "partition": "p", "payload": {"n": name}, "transactionId": name} for name in names]
    status, _, body = client.push(items)
    assert status == 201, body
    assert [item["status"] for item in body] == ["queued"] * len(names), body


def pop_and_ack(client, queue, count):
    """Pop `count` messages of partition p in one batch, ack them all; returns their transaction ids in order."""
    messages = client.pop_messages(queue, partition="p", batch=count)
    assert len(messages) == count, messages
    acked = client.ack_batch([ack_item(m) for m in messages])
    assert acked.status == 200 and all(r["success"] for r in acked.body), acked.body
    return [m["transactionId"] for m in messages]


def test_a_connection_without_tls_or_with_another_ca_is_refused(managed):
    """What makes the rest mean something: the deploy below can only have gone over TLS, with the certificate
    checked."""
    plain = managed.login(DEPLOYER, managed.deployer_password, sslmode="disable")
    assert not plain.is_up()
    with_other_ca = managed.login(DEPLOYER, managed.deployer_password)
    with_other_ca.root_cert = managed.other_ca_cert
    assert not with_other_ca.is_up()
    assert managed.deployer().is_up()


def test_a_fresh_deploy_by_a_login_without_role_attributes_serves(managed, broker_factory):
    dbname = "queen_managed_fresh"
    managed.prepare(dbname)
    assert_no_superuser_power(managed)

    deploy = managed.deploy(dbname)
    assert deploy.returncode == 0, deploy.stdout + deploy.stderr
    assert f"deploying {dbname} on 127.0.0.1:{managed.port} as {DEPLOYER} (sslmode verify-full)" in deploy.stdout
    assert_deployed(managed, dbname)
    assert_no_superuser_power(managed)

    broker = broker_factory(pg=managed.broker_target(dbname), env=managed.broker_env(), name="managed-fresh")
    sessions, on_tls = broker_sessions_on_tls(managed, dbname)
    assert sessions > 0 and on_tls == sessions
    queue = unique_name("managed")
    names = [f"fresh-{n}" for n in range(MESSAGES)]
    with broker.client() as client:
        push(client, queue, names)
        assert pop_and_ack(client, queue, MESSAGES) == names
        assert client.pop_messages(queue, partition="p") == []
        # analytics_postgres_stats reads the state of other logins' sessions (the broker's pool is another login
        # than queen_owner), which pg_stat_activity shows to members of pg_read_all_stats only.
        resp = client.get("/api/v1/analytics/postgres-stats")
        assert resp.status == 200, resp.body
        connections = resp.body["connections"]
        assert connections["total"] >= 1
        assert connections["active"] + connections["idle"] + connections["idleInTransaction"] == \
            connections["total"], connections


def test_the_previous_release_deployed_by_the_same_login_upgrades(managed, release, broker_factory):
    dbname = "queen_managed_upgrade"
    managed.prepare(dbname)
    deployer = managed.deployer(dbname)
    # How a database of the previous release was deployed: sqitch, by this login, over TLS.
    deployer.deploy(to=release.target)
    assert deployer.scalar("select queen.schema_version() as v") == release.tag.lstrip("v")
    assert_no_superuser_power(managed)

    queue = unique_name("managed-upgrade")
    before = [f"before-{n}" for n in range(MESSAGES)]
    previous = broker_factory(pg=managed.broker_target(dbname), env=managed.broker_env(), name="managed-previous",
                              binary=release.broker_binary)
    with previous.client() as client:
        push(client, queue, before)
        assert pop_and_ack(client, queue, 2) == before[:2]

    # The rolling order of docs/upgrading.md: the schema first, under the previous release's broker.
    deploy = managed.deploy(dbname)
    assert deploy.returncode == 0, deploy.stdout + deploy.stderr
    assert_deployed(managed, dbname)
    assert_no_superuser_power(managed)

    current = broker_factory(pg=managed.broker_target(dbname), env=managed.broker_env(), name="managed-current")
    previous.stop()
    sessions, on_tls = broker_sessions_on_tls(managed, dbname)
    assert sessions > 0 and on_tls == sessions
    after = [f"after-{n}" for n in range(2)]
    with current.client() as client:
        push(client, queue, after)
        assert pop_and_ack(client, queue, len(before) - 2 + len(after)) == before[2:] + after
        assert client.pop_messages(queue, partition="p") == []


def test_a_server_certificate_of_another_ca_stops_the_deploy(managed):
    dbname = "queen_managed_other_ca"
    managed.prepare(dbname)
    deploy = managed.deploy(dbname, DEPLOY_PG_SSLROOTCERT=managed.other_ca_cert)
    assert deploy.returncode != 0
    assert re.search(r"certificate verify failed", deploy.stdout + deploy.stderr), deploy.stdout + deploy.stderr
    assert managed.superuser.with_db(dbname).scalar(
        "select count(*) as n from pg_namespace where nspname in ('queen', 'sqitch')") == 0


PREPARATION = os.path.join(harness_env.REPO_ROOT, "scripts", "db-prepare-managed.sql")
# Each statement of the preparation (by the database the test prepares without it), and the error the deploy stops
# with when it is left out.
NEEDED = {
    "CREATE on the database": (
        "queen_managed_without_create",
        "SELECT format('GRANT CREATE ON DATABASE %I TO %I', current_database(), :'deployer')\n\\gexec\n",
        "permission denied for database"),
    "ADMIN OPTION on queen_owner": (
        "queen_managed_without_admin_option", " WITH ADMIN OPTION", 'must have admin option on role "queen_owner"'),
    "pg_read_all_stats for queen_owner": (
        "queen_managed_without_read_all_stats", "GRANT pg_read_all_stats TO queen_owner;\n",
        'must have admin option on role "pg_read_all_stats"'),
}


@pytest.mark.parametrize("dbname, statement, error", list(NEEDED.values()), ids=list(NEEDED))
def test_without_any_statement_of_the_preparation_the_deploy_stops(managed, dbname, statement, error):
    """The preparation holds nothing the deploy could do without."""
    with open(PREPARATION) as fh:
        script = fh.read()
    assert statement in script
    # Roles and memberships belong to the cluster: take back what another test's preparation granted (as the
    # provider's superuser, which only sets the scene here).
    managed.superuser.execute(f'REVOKE pg_read_all_stats FROM queen_owner; REVOKE queen_owner FROM "{DEPLOYER}";')
    managed.admin().execute('CREATE DATABASE :"db";', db=dbname)
    managed.admin(dbname).execute(script.replace(statement, ""), deployer=DEPLOYER)
    deploy = managed.deploy(dbname)
    assert deploy.returncode == 1, deploy.stdout + deploy.stderr
    assert error in deploy.stderr, deploy.stderr
    assert "db-deploy: sqitch could not deploy to " + dbname in deploy.stderr
    # sqitch reverts what the failed run deployed: the database is left as the preparation made it.
    assert managed.superuser.with_db(dbname).scalar(
        "select count(*) as n from pg_namespace where nspname in ('queen', 'queen_internal')") == 0


def test_the_page_shows_the_preparation_as_it_runs():
    """docs/deploy-managed-postgres.md prints every statement of scripts/db-prepare-managed.sql, in order."""
    with open(PREPARATION) as fh:
        script = fh.read()
    with open(os.path.join(harness_env.REPO_ROOT, "docs", "deploy-managed-postgres.md")) as fh:
        page = fh.read()

    def statements(text):
        lines = [line.strip() for line in text.splitlines()]
        return [line for line in lines if line and not line.startswith("--")]

    blocks = re.findall(r"```sql\n(.*?)```", page, flags=re.S)
    assert any(statements(block) == statements(script) for block in blocks), \
        "no ```sql block of docs/deploy-managed-postgres.md has the statements of scripts/db-prepare-managed.sql"
