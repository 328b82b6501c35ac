"""docker/Dockerfile, carried out without a Docker engine (dockerfile.py; docs/deploy.md, "Container").

Every stage's steps run into a directory standing for its image: the build stage compiles the broker from
exactly what its COPY lines bring (into BUILD_DOCKER, by default build-docker/, kept between runs like any build
directory), the runtime stage gets that binary, its user, its spool directory and its packages, and the migrate
stage its sqitch project. Then the container's first run happens as docs/deploy.md tells it: the migrate
image's entrypoint, with the environment of the Kubernetes schema Job, deploys the schema into an empty database
as the image's user; the runtime image's entrypoint, with the image's environment and as its user, serves
that database, its HEALTHCHECK passes, and a message goes through.
"""
import os
import re
import signal
import subprocess
import uuid

import pytest
import yaml

from deploy_paths import KUBERNETES_DIR
from dockerfile import DockerfileError, StageRoot, package_closure, parse
from harness import Broker, HttpClient, poll_until, unique_name
from harness.env import REPO_ROOT, new_tmp_dir, project_version

BUILD_DOCKER = os.environ.get("BUILD_DOCKER") or os.path.join(REPO_ROOT, "build-docker")


def ccache_env():
    """The build stage's compiler cache: the machine's, with paths relative to the stage's directory, so a
    clone elsewhere reuses it. It changes how fast the build is, not what it builds."""
    proc = subprocess.run(["ccache", "--get-config", "cache_dir"], capture_output=True, text=True)
    if proc.returncode != 0:
        return {}
    return {"CCACHE_DIR": proc.stdout.strip(), "CCACHE_BASEDIR": os.path.join(BUILD_DOCKER, "build"),
            "CCACHE_NOHASHDIR": "true"}


@pytest.fixture(scope="module")
def images():
    """{stage name: StageRoot}, every stage carried out in order."""
    stages = parse()
    done = {}
    for name, stage in stages.items():
        root = os.path.join(BUILD_DOCKER, name)
        keep = os.path.join(root, "src", "build")  # the build directory: a rerun compiles what changed only
        if os.path.isdir(root):
            for entry in os.listdir(root):
                path = os.path.join(root, entry)
                if entry == "src" and os.path.isdir(keep):
                    for inner in os.listdir(path):
                        if os.path.join(path, inner) != keep:
                            subprocess.run(["rm", "-rf", os.path.join(path, inner)], check=True)
                else:
                    subprocess.run(["rm", "-rf", path], check=True)
        done[name] = StageRoot(stage, root, dict(done), run_env=ccache_env()).carry_out()
    return done


def image_binary(images):
    return images["runtime"].host_path("/usr/local/bin/queen-broker")


def test_the_build_stage_builds_the_broker_of_this_tree(images):
    binary = image_binary(images)
    assert os.access(binary, os.X_OK), binary
    version = subprocess.run([binary, "--version"], capture_output=True, text=True, timeout=30)
    assert version.stdout.strip() == f"queen-broker {project_version()}"


def test_the_runtime_packages_hold_every_library_the_broker_loads(images):
    """Each shared library the image's binary needs comes from a package the runtime stage installs (or one
    those depend on): what the build stage had is not in the runtime image."""
    binary = image_binary(images)
    closure = package_closure(images["runtime"].packages)
    resolved = {}
    for line in subprocess.run(["ldd", binary], capture_output=True, text=True, check=True).stdout.splitlines():
        match = re.match(r"\s*(\S+) => (\S+)", line)
        if match:
            resolved[match.group(1)] = match.group(2)
    dynamic = subprocess.run(["readelf", "-d", binary], capture_output=True, text=True, check=True).stdout
    needed = re.findall(r"\(NEEDED\)\s+Shared library: \[([^\]]+)\]", dynamic)
    assert needed, dynamic
    missing = {}
    for library in needed:
        path = os.path.realpath(resolved[library])
        owner = subprocess.run(["dpkg", "-S", path], capture_output=True, text=True)
        if owner.returncode != 0:  # merged /usr: dpkg knows the /lib path
            owner = subprocess.run(["dpkg", "-S", path.replace("/usr/lib/", "/lib/", 1)],
                                   capture_output=True, text=True, check=True)
        package = owner.stdout.split(":")[0]
        if package not in closure:
            missing[library] = package
    assert not missing, f"libraries of packages the runtime stage does not install: {missing}"


@pytest.mark.parametrize("step, refusal", [
    ("RUN make install; rm -rf /", "only `&&` chains"),
    ("RUN ls /etc", "names an absolute path"),
    ("RUN useradd --system queen", "a fixed id is required"),
    ("COPY no-such-file ./", "does not exist"),
])
def test_the_executor_refuses_what_it_cannot_map(step, refusal, tmp_path):
    """A step the executor cannot carry out faithfully fails the test, never passes unexamined."""
    dockerfile = tmp_path / "Dockerfile"
    dockerfile.write_text(f"FROM debian:12-slim AS runtime\nWORKDIR /x\n{step}\n")
    (stage,) = parse(str(dockerfile)).values()
    with pytest.raises(DockerfileError, match=re.escape(refusal)):
        StageRoot(stage, str(tmp_path / "root"), {}).carry_out()


def schema_job_env(pg, database):
    """The schema Job's container environment, pointed at `database` on this test's server as its superuser;
    QUEEN_BROKER_PASSWORD stays the suites' own, since the role is the cluster's."""
    with open(os.path.join(KUBERNETES_DIR, "queen-schema-job.yaml"), encoding="utf-8") as manifest:
        job = yaml.safe_load(manifest)
    (container,) = job["spec"]["template"]["spec"]["containers"]
    env = {e["name"]: e.get("value") for e in container["env"]}
    assert env["SQITCH_TARGET"] == "db:pg:", "sqitch reads host, port, database and login from PG* below"
    env.update(PGHOST=pg.host, PGPORT=str(pg.port), PGDATABASE=database, PGUSER=pg.user, PGPASSWORD=pg.password,
               QUEEN_BROKER_PASSWORD=pg.broker_password)
    return job, env


def as_user(user, command):
    """`command` run as USER's numeric uid:gid (the image's USER line), as Docker would."""
    uid, gid = user.split(":")
    return ["setpriv", f"--reuid={uid}", f"--regid={gid}", "--clear-groups", "--", *command]


def test_the_first_run_deploys_the_schema_then_serves(pg, images):
    migrate, runtime = images["migrate"], images["runtime"]
    database = f"queen_container_{uuid.uuid4().hex[:10]}"
    pg.with_db("postgres").execute(f'create database "{database}";')
    broker = None
    try:
        job, job_env = schema_job_env(pg, database)
        assert job["spec"]["template"]["spec"]["securityContext"]["runAsUser"] == \
            int(migrate.stage.user().split(":")[0])
        env = {"PATH": "/usr/local/bin:/usr/bin:/bin", "HOME": "/nonexistent", **migrate.stage.env(), **job_env}
        entrypoint = migrate.stage.find("ENTRYPOINT")[0].exec_form()
        deploy = subprocess.run(as_user(migrate.stage.user(), entrypoint), env=env, capture_output=True,
                                text=True, cwd=migrate.host_path(migrate.workdir), timeout=600)
        assert deploy.returncode == 0, deploy.stdout + deploy.stderr
        target = pg.with_db(database)
        assert target.scalar("select queen.schema_version() as v") == project_version()

        # The runtime image: its ENTRYPOINT, its ENV, its USER, its spool directory; this test's database and port.
        image_env = runtime.stage.env()
        spool_dir = runtime.host_path(image_env["FILE_BUFFER_DIR"])
        assert runtime.stage.find("VOLUME")[0].exec_form() == [image_env["FILE_BUFFER_DIR"]]
        assert image_env["PORT"] in runtime.stage.find("EXPOSE")[0].args.split()
        entrypoint = runtime.stage.find("ENTRYPOINT")[0].exec_form()
        assert entrypoint == ["/usr/local/bin/queen-broker"], entrypoint
        launcher = os.path.join(new_tmp_dir("container-launcher"), "entrypoint")
        with open(launcher, "w", encoding="utf-8") as script:
            script.write("#!/bin/sh\nexec " + " ".join(as_user(runtime.stage.user(), [runtime.host_path(
                entrypoint[0])])) + ' "$@"\n')
        os.chmod(launcher, 0o755)
        broker = Broker(pg=target, name=f"container-{unique_name('b')}", binary=launcher, spool_dir=spool_dir)
        broker.extra_env = {"LOG_LEVEL": None, "DB_POOL_SIZE": None, "QUEEN_SERVER_ID": None,
                            **image_env, "PORT": str(broker.port), "FILE_BUFFER_DIR": spool_dir,
                            **target.broker_env()}
        broker.start()

        with HttpClient(broker.url) as client:
            ready = client.get("/health/ready")
            assert ready.status == 200, ready.body
            assert ready.body["spoolDirectory"]["path"] == spool_dir
            assert ready.body["spoolDirectory"]["fallback"] is False, ready.body["spoolDirectory"]
        health = runtime.stage.find("HEALTHCHECK")[0].exec_form()
        check = subprocess.run(as_user(runtime.stage.user(), [runtime.host_path(health[0]), *health[1:]]),
                               env=broker.environment(), capture_output=True, text=True, timeout=30)
        assert check.returncode == 0, check.stdout + check.stderr
        queue = unique_name("container")
        with broker.client() as client:
            assert client.push_one(queue, {"first": "run"}).body[0]["status"] == "queued"
            assert [m["data"] for m in client.pop_messages(queue, wait=False)] == [{"first": "run"}]
        owner = os.stat(os.path.join(spool_dir, "broker.lock"))
        assert f"{owner.st_uid}:{owner.st_gid}" == runtime.stage.user()

        broker.signal(signal.SIGTERM)
        poll_until(lambda: not broker.alive, timeout=120, what="the broker to exit")
        assert broker.returncode == 0, broker.log_tail()
    finally:
        if broker is not None:
            broker.stop()
        pg.with_db("postgres").execute(f'drop database if exists "{database}" with (force);')
