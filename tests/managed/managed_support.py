"""The managed-PostgreSQL suite's pieces (tests/managed, docs/deploy-managed-postgres.md): a throwaway cluster set up
the way hosted PostgreSQL is (start_managed_cluster), its logins reached over TLS (TlsLogin), and the customer's
steps on it (Managed.prepare, Managed.deploy).

The provider's superuser (postgres, trusted over TLS from loopback) stands for what a provider keeps to itself: the
suite uses it to build the cluster and to read the catalogs in assertions, never to deploy or to prepare.
"""
import os
import shutil
import subprocess

from harness import PgCluster, PgTarget, poll_until
from harness import env as harness_env

ADMIN = "queen_managed_admin"       # the provider's administrator login (RDS, Cloud SQL, Azure: CREATEROLE CREATEDB)
DEPLOYER = "queen_managed_deploy"   # the login that deploys: no role attribute, only what the preparation grants
OPENSSL_TIMEOUT_S = 60
DEPLOY_TIMEOUT_S = 600


class TlsLogin(PgTarget):
    """A login on the managed cluster, reached the way a client outside it connects: TLS, the server's certificate
    checked against root_cert (sslmode verify-full by default), a password."""

    def __init__(self, port, dbname, user, password, root_cert, sslmode="verify-full"):
        super().__init__("127.0.0.1", port, dbname, user, password)
        self.root_cert, self.sslmode = root_cert, sslmode

    def with_db(self, dbname):
        return TlsLogin(self.port, dbname, self.user, self.password, self.root_cert, self.sslmode)

    def _client_env(self):
        variables = super()._client_env()
        variables.update(PGSSLMODE=self.sslmode, PGSSLROOTCERT=self.root_cert)
        return variables


def openssl(*args, cwd):
    proc = subprocess.run(["openssl", *args], cwd=cwd, capture_output=True, text=True, timeout=OPENSSL_TIMEOUT_S)
    if proc.returncode != 0:
        raise RuntimeError(f"openssl {' '.join(args)} failed: {proc.stderr}")


def make_ca(directory, name):
    """A self-signed CA: NAME.key and NAME.crt in directory."""
    openssl("req", "-x509", "-new", "-nodes", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1",
            "-keyout", f"{name}.key", "-out", f"{name}.crt", "-days", "2", "-subj", f"/CN=Queen test {name}",
            "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign,cRLSign",
            cwd=directory)
    return os.path.join(directory, f"{name}.crt")


def make_server_certificate(directory, ca):
    """server.key and server.crt for 127.0.0.1 and localhost, signed by CA `ca` (ca.key, ca.crt)."""
    with open(os.path.join(directory, "server.ext"), "w") as fh:
        fh.write("basicConstraints=CA:FALSE\nkeyUsage=critical,digitalSignature,keyEncipherment\n"
                 "extendedKeyUsage=serverAuth\nsubjectAltName=IP:127.0.0.1,DNS:localhost\n")
    openssl("req", "-new", "-nodes", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1",
            "-keyout", "server.key", "-out", "server.csr", "-subj", "/CN=127.0.0.1", cwd=directory)
    openssl("x509", "-req", "-in", "server.csr", "-CA", f"{ca}.crt", "-CAkey", f"{ca}.key", "-CAcreateserial",
            "-out", "server.crt", "-days", "2", "-extfile", "server.ext", cwd=directory)
    key = os.path.join(directory, "server.key")
    # PostgreSQL refuses a key that others may read; as root the server runs as user postgres.
    if os.geteuid() == 0:
        shutil.chown(key, "postgres", "postgres")
    os.chmod(key, 0o600)
    return os.path.join(directory, "server.crt"), key


# Every login but the provider's superuser comes over TLS with a password; a connection without TLS matches the
# reject line whoever it is.
MANAGED_HBA = """\
local   all  postgres                 trust
hostssl all  postgres  127.0.0.1/32   trust
hostssl all  all       127.0.0.1/32   scram-sha-256
host    all  all       127.0.0.1/32   reject
"""


class Managed:
    """The managed cluster, its CA, and the provider's administrator login."""

    def __init__(self, cluster, ca_cert, other_ca_cert):
        self.cluster, self.ca_cert, self.other_ca_cert = cluster, ca_cert, other_ca_cert
        self.port = cluster.port
        self.admin_password = "admin-pw-4c1f"
        self.deployer_password = "deploy-pw-93ab"
        self.broker_password = "broker-pw-7d2e"

    @property
    def superuser(self):
        """The provider's own superuser: reads catalogs for assertions, nothing else."""
        return self.cluster.target

    def login(self, user, password, dbname="postgres", **kw):
        return TlsLogin(self.port, dbname, user, password, self.ca_cert, **kw)

    def admin(self, dbname="postgres"):
        return self.login(ADMIN, self.admin_password, dbname)

    def deployer(self, dbname="postgres"):
        return self.login(DEPLOYER, self.deployer_password, dbname)

    def broker_target(self, dbname):
        """What brokers get: queen_broker and its password (PG_USE_SSL and PGSSLROOTCERT come from broker_env)."""
        return PgTarget("127.0.0.1", self.port, dbname, broker_user="queen_broker",
                        broker_password=self.broker_password)

    def broker_env(self):
        return {"PG_USE_SSL": "true", "PGSSLROOTCERT": self.ca_cert, "DB_POOL_SIZE": 5}

    def prepare(self, dbname):
        """The customer's administrator's part, as the provider's administrator login over TLS: the database, then
        scripts/db-prepare-managed.sql in it (the one step docs/deploy-managed-postgres.md adds to a deploy)."""
        self.admin().execute('CREATE DATABASE :"db";', db=dbname)
        with open(os.path.join(harness_env.REPO_ROOT, "scripts", "db-prepare-managed.sql")) as fh:
            self.admin(dbname).execute(fh.read(), deployer=DEPLOYER, broker_password=self.broker_password)

    def deploy(self, dbname, **env):
        """scripts/db-deploy.sh as the deploying login over TLS (verify-full against the suite's CA); env overrides
        its variables. Returns the finished process."""
        variables = dict(os.environ)
        variables.update({
            "PG_DB": dbname, "DEPLOY_PG_HOST": "127.0.0.1", "DEPLOY_PG_PORT": str(self.port),
            "DEPLOY_PG_USER": DEPLOYER, "PGPASSWORD": self.deployer_password,
            "DEPLOY_PG_SSLMODE": "verify-full", "DEPLOY_PG_SSLROOTCERT": self.ca_cert,
            "DEPLOY_CREATE_DATABASE": "false", "DEPLOY_SET_BROKER_PASSWORD": "false",
        })
        variables.update({k: str(v) for k, v in env.items()})
        return subprocess.run([os.path.join(harness_env.REPO_ROOT, "scripts", "db-deploy.sh")], env=variables,
                              capture_output=True, text=True, timeout=DEPLOY_TIMEOUT_S)


def refuses_plain_connections(target):
    """True once a connection without TLS is refused by pg_hba.conf (after the reload)."""
    proc = subprocess.run(["psql", "-X", "-tA", "-c", "select 1",
                           f"host=127.0.0.1 port={target.port} dbname=postgres user=postgres sslmode=disable"],
                          capture_output=True, text=True, timeout=30)
    return proc.returncode != 0 and "no encryption" in proc.stderr


def start_managed_cluster():
    """A running throwaway cluster set up as a managed PostgreSQL: TLS on with a certificate of a CA made here with
    openssl, every login but the provider's own superuser on TLS with a password (a connection without TLS is
    refused), the provider's administrator login (CREATEROLE, CREATEDB, not a superuser) and the deploying login
    it made (no attribute). The caller destroys managed.cluster."""
    certs = harness_env.new_tmp_dir("managed-tls")
    harness_env.make_enterable(certs)
    ca_cert = make_ca(certs, "ca")
    other_ca_cert = make_ca(certs, "other-ca")
    server_cert, server_key = make_server_certificate(certs, "ca")
    cluster = PgCluster(dbname="postgres", deploy=False, settings={"ssl": "on", "ssl_cert_file": server_cert,
                                                "ssl_key_file": server_key,
                                                "password_encryption": "scram-sha-256"})
    managed = Managed(cluster, ca_cert, other_ca_cert)
    try:
        cluster.create()
        with open(os.path.join(cluster.data_dir, "pg_hba.conf"), "w") as fh:
            fh.write(MANAGED_HBA)
        cluster.target.execute("select pg_reload_conf();")
        poll_until(lambda: refuses_plain_connections(cluster.target), timeout=30,
                   what="pg_hba.conf of the managed cluster in force")
        # What the provider hands its customer: an administrator login that is not a superuser.
        cluster.target.execute(
            f'CREATE ROLE "{ADMIN}" LOGIN PASSWORD :\'pw\' NOSUPERUSER CREATEROLE CREATEDB NOREPLICATION NOBYPASSRLS;',
            pw=managed.admin_password)
        # The customer's administrator makes the deploying login, with no attribute at all.
        managed.admin().execute(f'CREATE ROLE "{DEPLOYER}" LOGIN PASSWORD :\'pw\';', pw=managed.deployer_password)
    except BaseException:
        cluster.destroy()
        raise
    return managed
