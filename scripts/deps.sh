#!/usr/bin/env bash
# Installs the Debian 12 packages the project needs, only when one is missing.
#   scripts/deps.sh         what `make run` needs: PostgreSQL, sqitch and the broker's build (RUN_PKGS)
#   scripts/deps.sh test    what `make test` needs on top: pgTAP, GoogleTest, clang, the Python suites (TEST_PKGS)
#   scripts/deps.sh bench   what only `make bench` needs on top (BENCH_PKGS)
set -euo pipefail
# Boost 1.81 is Debian 12's; CMake takes any newer one (README, "Platforms").
RUN_PKGS=(postgresql-15 sqitch libdbd-pg-perl
          libpqxx-dev libpoco-dev libboost1.81-dev libspdlog-dev nlohmann-json3-dev libssl-dev libcurl4-openssl-dev
          cmake build-essential pkg-config)
# pgTAP for sql/tests; GoogleTest for the unit tests (CMake builds none without it); clang for lint and the fuzz
# harnesses; Chromium and selenium for tests/dashboard; iproute2, util-linux and e2fsprogs for tests/fault;
# patroni and etcd-server: tests/failover runs a real Patroni failover (patronictl failover, etcd on loopback);
# git: tests/upgrade and make test-tagged read the release's commit (util-linux's flock serialises build-previous);
# prometheus for promtool: tests/integration/test_prometheus.py checks /metrics, the alert rules and their tests.
# curl, jq, openssl and python3-jwt: tests/docs_examples runs the documentation's examples, which use them;
# openssl also makes tests/managed's CA and the server certificate of its TLS cluster.
# tests/deploy_files (docs/deploy.md): systemd for systemd-analyze (it checks the unit; systemd need not be the
# init system), strace to hold the broker to the unit's sandbox, binutils for readelf; Node.js for the Kubernetes
# manifests' checker, whose npm packages (tests/deploy_files/package-lock.json) are installed below.
TEST_PKGS=(postgresql-15-pgtap libtap-parser-sourcehandler-pgtap-perl libgtest-dev libgmock-dev googletest ccache git
           clang-14 clang-tidy-14 libclang-rt-14-dev python3 python3-pytest python3-yaml python3-jsonschema
           chromium chromium-driver python3-selenium iproute2 util-linux e2fsprogs patroni etcd-server
           prometheus curl jq openssl python3-jwt systemd strace binutils)
# The RabbitMQ anchor of the bench (bench/rabbitmq/, scripts/bench-rabbitmq.sh): the server runs as a
# node of the bench's own, and the anchor client is built against librabbitmq-c.
BENCH_PKGS=(rabbitmq-server librabbitmq-dev)

case "${1:-}" in
  "" | run) wanted=("${RUN_PKGS[@]}") ;;
  test) wanted=("${RUN_PKGS[@]}" "${TEST_PKGS[@]}") ;;
  bench) wanted=("${BENCH_PKGS[@]}") ;;
  *) echo "deps: unknown argument '$1' (expected nothing, 'run', 'test' or 'bench')" >&2; exit 2 ;;
esac

missing=()
for p in "${wanted[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
# Node.js and npm by command: a machine may have them from another Debian package (one that bundles npm).
if [ "${1:-}" = test ] && ! { command -v node && command -v npm; } >/dev/null; then missing+=(nodejs npm); fi

# The npm packages of tests/deploy_files, as its lock file pins them; again only when the lock file changed.
npm_packages() {
  local dir
  dir=$(cd "$(dirname "$0")/../tests/deploy_files" && pwd)
  if ! cmp -s "$dir/package-lock.json" "$dir/node_modules/.installed-package-lock.json"; then
    echo "deps: npm ci in tests/deploy_files"
    (cd "$dir" && npm ci --no-audit --no-fund --loglevel=error)
    cp "$dir/package-lock.json" "$dir/node_modules/.installed-package-lock.json"
  fi
}
if [ ${#missing[@]} -eq 0 ]; then
  if [ "${1:-}" = test ]; then npm_packages; fi
  exit 0
fi
echo "deps: installing ${missing[*]}"
SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO="sudo"

# Debian's rabbitmq-server package starts a system-wide node (and epmd) on install. The bench runs a node of
# its own on ports it picks, so during the install a policy-rc.d refuses every service start (exit 101, the
# Debian convention); one the machine already has (containers often do) is left as it is.
POLICY_RC=/usr/sbin/policy-rc.d
added_policy=0
restore_policy() {
  if [ "$added_policy" = 1 ]; then $SUDO rm -f "$POLICY_RC"; fi
}
if [ "${1:-}" = bench ] && [ ! -e "$POLICY_RC" ]; then
  printf '#!/bin/sh\n# scripts/deps.sh bench: no service starts while packages install\nexit 101\n' |
    $SUDO tee "$POLICY_RC" >/dev/null
  $SUDO chmod 755 "$POLICY_RC"
  added_policy=1
fi
trap restore_policy EXIT

$SUDO apt-get update -q
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"

if [ "${1:-}" = bench ] && command -v systemctl >/dev/null && [ -d /run/systemd/system ]; then
  # With systemd, policy-rc.d does not stop the unit from being enabled for the next boot.
  $SUDO systemctl disable --now rabbitmq-server >/dev/null 2>&1 || true
fi

if [ "${1:-}" = test ]; then npm_packages; fi
