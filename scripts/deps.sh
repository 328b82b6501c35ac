#!/usr/bin/env bash
# Installs the Debian 12 packages the project needs, only when one is missing.
set -euo pipefail
# patroni and etcd-server: tests/failover runs a real Patroni failover (patronictl failover, etcd on loopback).
PKGS=(postgresql-15 postgresql-15-pgtap sqitch libdbd-pg-perl libtap-parser-sourcehandler-pgtap-perl
      libpqxx-dev libpoco-dev libboost1.81-dev libspdlog-dev libgtest-dev libgmock-dev googletest nlohmann-json3-dev
      libssl-dev libcurl4-openssl-dev cmake build-essential pkg-config ccache clang-14 clang-tidy-14 libclang-rt-14-dev python3 python3-pytest python3-yaml python3-jsonschema chromium chromium-driver python3-selenium iproute2 util-linux e2fsprogs
      patroni etcd-server)
missing=()
for p in "${PKGS[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then exit 0; fi
echo "deps: installing ${missing[*]}"
SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO="sudo"
$SUDO apt-get update -q
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"
