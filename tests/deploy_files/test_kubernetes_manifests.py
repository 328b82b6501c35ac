"""deploy/kubernetes (docs/deploy.md, "Kubernetes").

The manifests are checked offline against the Kubernetes API (validate-manifests.js: the OpenAPI schemas and the
TypeScript interfaces of kubernetes-models, an npm package generated from one Kubernetes release), then against
the broker: the pod's environment, built from the ConfigMap, the Secret and the pod spec as the kubelet would,
passes the broker's deploy gate and runs three brokers whose mesh is the one the ConfigMap describes, and the
probes, ports, volume, user and timeouts agree with the broker and the image.
"""
import os
import subprocess

import pytest
import yaml

from deploy_paths import KUBERNETES_DIR, check_config, effective_ms
from dockerfile import parse as parse_dockerfile
from harness import Broker, HttpClient, free_port, poll_until, unique_name
from harness.env import project_version

HERE = os.path.dirname(os.path.abspath(__file__))
VALIDATOR = os.path.join(HERE, "validate-manifests.js")
MANIFESTS = sorted(os.path.join(KUBERNETES_DIR, name) for name in os.listdir(KUBERNETES_DIR)
                   if name.endswith(".yaml"))
SPOOL_RECOVERY_BUDGET_S = 3600  # src/spool/spool.h: startup recovery before the listener binds


def validate(*paths):
    assert os.path.isdir(os.path.join(HERE, "node_modules")), \
        "tests/deploy_files/node_modules is missing: run scripts/deps.sh test (npm ci there)"
    proc = subprocess.run(["node", VALIDATOR, *paths], capture_output=True, text=True, timeout=300, cwd=HERE)
    return proc.returncode, proc.stdout + proc.stderr


@pytest.fixture(scope="module")
def objects():
    """{(kind, name): object} of every manifest."""
    found = {}
    for path in MANIFESTS:
        with open(path, encoding="utf-8") as manifest:
            for document in yaml.safe_load_all(manifest):
                if document:
                    found[(document["kind"], document["metadata"]["name"])] = document
    return found


def the(objects, kind):
    matches = [obj for (k, _), obj in objects.items() if k == kind]
    assert len(matches) == 1, f"expected one {kind}, found {len(matches)}"
    return matches[0]


def broker_container(objects):
    containers = the(objects, "StatefulSet")["spec"]["template"]["spec"]["containers"]
    assert len(containers) == 1, containers
    return containers[0]


def pod_environment(objects, pod_name):
    """The broker container's environment as the kubelet builds it: envFrom in order, then env (which wins);
    Secret values from stringData; fieldRef metadata.name is the pod's name."""
    container = broker_container(objects)
    variables = {}
    for source in container.get("envFrom", []):
        if "configMapRef" in source:
            variables.update(objects[("ConfigMap", source["configMapRef"]["name"])]["data"])
        else:
            variables.update(objects[("Secret", source["secretRef"]["name"])]["stringData"])
    for entry in container.get("env", []):
        if "value" in entry:
            variables[entry["name"]] = entry["value"]
        elif "fieldRef" in entry["valueFrom"]:
            assert entry["valueFrom"]["fieldRef"]["fieldPath"] == "metadata.name", entry
            variables[entry["name"]] = pod_name
        else:
            ref = entry["valueFrom"]["secretKeyRef"]
            variables[entry["name"]] = objects[("Secret", ref["name"])]["stringData"][ref["key"]]
    return variables


def test_every_manifest_passes_the_kubernetes_schemas_and_types():
    status, output = validate(*MANIFESTS)
    documents = sum(1 for path in MANIFESTS for d in yaml.safe_load_all(open(path, encoding="utf-8")) if d)
    assert status == 0, output
    assert f"{documents} document(s) valid" in output, output


BROKEN = {
    "a misspelt field": (("readinessProbe:", "readinesProbe:"),
                         "'\"readinesProbe\"' does not exist in type 'IContainer'"),
    "a wrong type": (("replicas: 3", "replicas: three"), "replicas must be integer"),
    "a missing required field": (("        - name: broker\n          image:", "        - image:"),
                                 "containers/0 must have required property name"),
    "an unknown kind": (("kind: PodDisruptionBudget", "kind: PodDisruptionBudge"),
                        "policy/v1 PodDisruptionBudge is not a resource of the Kubernetes API"),
    "a duplicate key": (("  replicas: 3\n", "  replicas: 3\n  replicas: 2\n"), "Map keys must be unique"),
}


@pytest.mark.parametrize("case", sorted(BROKEN))
def test_the_validator_refuses(case, tmp_path):
    """The check above can fail, on each kind of mistake it is there for."""
    (old, new), expected = BROKEN[case]
    with open(os.path.join(KUBERNETES_DIR, "queen-broker.yaml"), encoding="utf-8") as manifest:
        text = manifest.read()
    assert old in text
    broken = tmp_path / "broken.yaml"
    broken.write_text(text.replace(old, new, 1))
    status, output = validate(str(broken))
    assert status == 1 and expected in output, output


def test_the_pod_environment_passes_the_deploy_gate(objects):
    status, settings, stderr = check_config(pod_environment(objects, "queen-0"))
    assert status == 0, stderr
    assert "warning" not in stderr, stderr
    assert settings["QUEEN_SERVER_ID"] == "queen-0"


def test_service_links_are_off():
    """A Service named queen would add QUEEN_PORT=tcp://... to the pod; queen-mesh would add QUEEN_MESH_PORT."""
    for path in MANIFESTS:
        for document in yaml.safe_load_all(open(path, encoding="utf-8")):
            if document and document["kind"] in ("StatefulSet", "Job"):
                assert document["spec"]["template"]["spec"]["enableServiceLinks"] is False, path


def test_the_spool_is_a_volume_per_pod_at_the_spool_directory(objects):
    statefulset = the(objects, "StatefulSet")
    templates = {t["metadata"]["name"]: t for t in statefulset["spec"]["volumeClaimTemplates"]}
    mounts = {m["name"]: m["mountPath"] for m in broker_container(objects)["volumeMounts"]}
    spool_dir = pod_environment(objects, "queen-0")["FILE_BUFFER_DIR"]
    claimed = [name for name, path in mounts.items() if path == spool_dir]
    assert claimed and claimed[0] in templates, (mounts, spool_dir)
    assert templates[claimed[0]]["spec"]["accessModes"] == ["ReadWriteOnce"]
    runtime = parse_dockerfile()["runtime"]
    assert runtime.find("VOLUME")[0].exec_form() == [spool_dir]


def test_the_pods_run_as_the_images_user(objects):
    pod = the(objects, "StatefulSet")["spec"]["template"]["spec"]
    uid, gid = parse_dockerfile()["runtime"].user().split(":")
    security = pod["securityContext"]
    assert (security["runAsUser"], security["runAsGroup"], security["fsGroup"]) == (int(uid), int(gid), int(gid))
    assert security["runAsNonRoot"] is True
    assert broker_container(objects)["securityContext"]["readOnlyRootFilesystem"] is True


def test_probes_ports_and_timeouts_fit_the_broker(objects):
    pod = the(objects, "StatefulSet")["spec"]["template"]["spec"]
    container = broker_container(objects)
    env = pod_environment(objects, "queen-0")
    _, settings, stderr = check_config(env)
    assert settings, stderr
    ports = {p["name"]: p["containerPort"] for p in container["ports"]}
    assert ports["http"] == int(settings["PORT"]) and ports["mesh"] == int(settings["QUEEN_MESH_PORT"])

    assert container["readinessProbe"]["httpGet"] == {"path": "/health/ready", "port": "http"}
    assert container["livenessProbe"]["httpGet"] == {"path": "/health", "port": "http"}
    assert container["startupProbe"]["httpGet"] == {"path": "/health", "port": "http"}
    startup = container["startupProbe"]
    assert startup["periodSeconds"] * startup["failureThreshold"] > SPOOL_RECOVERY_BUDGET_S

    # After SIGTERM readiness fails for SHUTDOWN_GRACE_MS: long enough for the probe to see it.
    readiness = container["readinessProbe"]
    assert effective_ms(settings, "SHUTDOWN_GRACE_MS") >= \
        1000 * readiness["periodSeconds"] * readiness["failureThreshold"]
    needed_ms = (effective_ms(settings, "SHUTDOWN_GRACE_MS") + effective_ms(settings, "HTTP_DRAIN_TIMEOUT_MS")
                 + 2 * effective_ms(settings, "DB_STATEMENT_TIMEOUT"))
    assert pod["terminationGracePeriodSeconds"] * 1000 > needed_ms


def test_services_and_the_budget_select_the_brokers(objects):
    statefulset = the(objects, "StatefulSet")
    labels = statefulset["spec"]["template"]["metadata"]["labels"]
    assert statefulset["spec"]["selector"]["matchLabels"].items() <= labels.items()
    port_names = {p["name"] for p in broker_container(objects)["ports"]}
    services = {name: obj for (kind, name), obj in objects.items() if kind == "Service"}
    for service in services.values():
        assert service["spec"]["selector"].items() <= labels.items()
        assert {p["targetPort"] for p in service["spec"]["ports"]} <= port_names
    governing = services[statefulset["spec"]["serviceName"]]
    assert governing["spec"]["clusterIP"] == "None" and governing["spec"]["publishNotReadyAddresses"] is True
    assert [p["targetPort"] for p in governing["spec"]["ports"]] == ["mesh"]
    # Clients reach http only; the mesh port is never on the client Service.
    assert all("mesh" not in {p["targetPort"] for p in s["spec"]["ports"]}
               for name, s in services.items() if name != statefulset["spec"]["serviceName"])
    budget = the(objects, "PodDisruptionBudget")
    assert budget["spec"]["selector"]["matchLabels"].items() <= labels.items()
    assert budget["spec"]["maxUnavailable"] == 1


def test_the_schema_job_matches_the_brokers_release_and_password(objects):
    """The Job and the brokers are of this tree's release, and the Job sets the password the brokers log in with."""
    job = the(objects, "Job")
    (job_container,) = job["spec"]["template"]["spec"]["containers"]
    release = project_version()
    assert broker_container(objects)["image"].endswith(f":{release}")
    assert job_container["image"].endswith(f":{release}")
    assert job["metadata"]["name"].endswith(release.replace(".", "-"))
    password = {e["name"]: e for e in job_container["env"]}["QUEEN_BROKER_PASSWORD"]["valueFrom"]["secretKeyRef"]
    broker_secret = [s["secretRef"]["name"] for s in broker_container(objects)["envFrom"] if "secretRef" in s]
    assert (password["name"], password["key"]) == (broker_secret[0], "PG_PASSWORD")


def mesh_addresses(peers):
    return [tuple(entry.strip().rsplit(":", 1)) for entry in peers.split(",")]


def test_three_pods_environments_run_brokers_whose_mesh_is_the_configmaps(pg, objects):
    """Each pod's environment, on this machine: the database and the HTTP port are this test's, and every
    queen-N.queen-peers:6633 of QUEEN_MESH_PEERS becomes 127.0.0.1 on a port of its own. Every broker keeps the
    whole list, itself included, as every pod does: each must see the two others alive and drop its own frames."""
    statefulset = the(objects, "StatefulSet")
    replicas = statefulset["spec"]["replicas"]
    names = [f"{statefulset['metadata']['name']}-{i}" for i in range(replicas)]
    base = pod_environment(objects, names[0])
    peers = mesh_addresses(base["QUEEN_MESH_PEERS"])
    governing = statefulset["spec"]["serviceName"]
    assert peers == [(f"{name}.{governing}", base["QUEEN_MESH_PORT"]) for name in names], peers
    mesh_ports = {name: free_port() for name in names}
    mapped_peers = ",".join(f"127.0.0.1:{mesh_ports[name]}" for name in names)

    brokers = []
    try:
        for name in names:
            env = pod_environment(objects, name)
            broker = Broker(pg=pg, name=f"k8s-{name}-{unique_name('b')}")
            env.update(pg.broker_env())
            env.update(PORT=str(broker.port), HOST="127.0.0.1", FILE_BUFFER_DIR=broker.spool_dir,
                       QUEEN_MESH_PORT=str(mesh_ports[name]), QUEEN_MESH_PEERS=mapped_peers,
                       QUEEN_SERVER_ID=name + "-" + broker.name)
            broker.extra_env = {"LOG_LEVEL": None, "DB_POOL_SIZE": "10", **env}
            brokers.append(broker.start())
        container = broker_container(objects)
        for broker in brokers:
            with HttpClient(broker.url) as client:
                for probe in ("readinessProbe", "livenessProbe", "startupProbe"):
                    answer = client.get(container[probe]["httpGet"]["path"])
                    assert answer.status == 200, (probe, answer.body)

                def others_alive():
                    state = client.get("/health").body["shared_state"]
                    alive = {s["server_id"] for s in state["senders"] if s["alive"]}
                    return alive == {b.extra_env["QUEEN_SERVER_ID"] for b in brokers if b is not broker}

                poll_until(others_alive, timeout=30, what=f"{broker.name} to see the two other brokers alive")
    finally:
        for broker in brokers:
            broker.stop()
