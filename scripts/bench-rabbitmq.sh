#!/usr/bin/env bash
# The RabbitMQ anchor of `make bench` (bench/README.md, "RabbitMQ anchor"): starts a RabbitMQ node of its own
# (own node name, free loopback ports for AMQP, Erlang distribution and epmd, a temporary directory for its
# database, logs, config and cookie), runs build/queen-rabbitmq-anchor against it with the node's beam.smp pid,
# then stops the node and removes the directory. The system's RabbitMQ instance, if any, is not touched.
#
#   scripts/bench-rabbitmq.sh [queen-rabbitmq-anchor flags, e.g. --duration 8 --batches 1,10,100]
#
# When rabbitmq-server or the anchor binary is missing it prints one line saying so and exits 0, so the
# main bench can report RabbitMQ as skipped. Otherwise it exits with the anchor's status.
#
# Environment (all optional):
#   BUILD                     build directory holding queen-rabbitmq-anchor (default ./build)
#   RABBITMQ_ANCHOR_BIN       the anchor binary (default $BUILD/queen-rabbitmq-anchor)
#   RABBITMQ_SBIN             directory of Debian's unwrapped rabbitmq-server and rabbitmqctl
#                             (default /usr/lib/rabbitmq/bin; they run as the calling user)
#   RABBITMQ_BENCH_JSON       JSON results file (default bench/results-rabbitmq.json)
#   RABBITMQ_BENCH_ARGS       extra anchor flags, placed before the command line's
#   RABBITMQ_START_TIMEOUT_S  bound on the node's start (default 120; it took 10 to 60 s on the shared 2-core box)
#   RABBITMQ_BENCH_TIMEOUT_S  bound on the anchor's run (default 400)
#   RABBITMQ_STOP_TIMEOUT_S   bound on the node's orderly stop before it is killed (default 30)
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-$ROOT/build}
ANCHOR_BIN=${RABBITMQ_ANCHOR_BIN:-$BUILD/queen-rabbitmq-anchor}
SBIN=${RABBITMQ_SBIN:-/usr/lib/rabbitmq/bin}
JSON=${RABBITMQ_BENCH_JSON:-$ROOT/bench/results-rabbitmq.json}
START_TIMEOUT_S=${RABBITMQ_START_TIMEOUT_S:-120}
RUN_TIMEOUT_S=${RABBITMQ_BENCH_TIMEOUT_S:-400}
STOP_TIMEOUT_S=${RABBITMQ_STOP_TIMEOUT_S:-30}

if [ ! -x "$SBIN/rabbitmq-server" ] || [ ! -x "$SBIN/rabbitmqctl" ]; then
  echo "bench-rabbitmq: skipped: rabbitmq-server is not installed ($SBIN; scripts/deps.sh bench installs it)"
  exit 0
fi
if [ ! -x "$ANCHOR_BIN" ]; then
  echo "bench-rabbitmq: skipped: $ANCHOR_BIN is missing (built when librabbitmq-dev is installed: scripts/deps.sh bench, then make build)"
  exit 0
fi

free_port() { /usr/bin/python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

NODE_DIR=$(mktemp -d /tmp/queen-rabbitmq.XXXXXX)
NODE_NAME="queen-bench-$$@localhost"
AMQP_PORT=$(free_port)
DIST_PORT=$(free_port)
EPMD_PORT=$(free_port)
SERVER_PID=""   # the rabbitmq-server script run in the background
BEAM_PID=""     # the Erlang VM it started
FOREGROUND_PID="" # what bg_wait is waiting for

# Everything the node and rabbitmqctl read comes from here, not from /etc/rabbitmq or /var/lib/rabbitmq.
# HOME holds the Erlang cookie both of them use; the private epmd keeps the node off any other epmd.
export HOME="$NODE_DIR"
export RABBITMQ_NODENAME="$NODE_NAME"
export RABBITMQ_NODE_IP_ADDRESS=127.0.0.1
export RABBITMQ_NODE_PORT="$AMQP_PORT"
export RABBITMQ_DIST_PORT="$DIST_PORT"
export ERL_EPMD_PORT="$EPMD_PORT"
export ERL_EPMD_ADDRESS=127.0.0.1
export RABBITMQ_CONF_ENV_FILE="$NODE_DIR/rabbitmq-env.conf"
export RABBITMQ_CONFIG_FILE="$NODE_DIR/rabbitmq.conf"
export RABBITMQ_ADVANCED_CONFIG_FILE="$NODE_DIR/advanced.config"
export RABBITMQ_ENABLED_PLUGINS_FILE="$NODE_DIR/enabled_plugins"
export RABBITMQ_MNESIA_BASE="$NODE_DIR/mnesia"
export RABBITMQ_LOG_BASE="$NODE_DIR/log"
export RABBITMQ_PID_FILE="$NODE_DIR/node.pid"
# A VM that crashes (the node, or rabbitmqctl) writes its dump here rather than into the current directory.
export ERL_CRASH_DUMP="$NODE_DIR/erl_crash.dump"
mkdir -p "$RABBITMQ_MNESIA_BASE" "$RABBITMQ_LOG_BASE"
: >"$RABBITMQ_CONF_ENV_FILE"
echo "[]." >"$RABBITMQ_ENABLED_PLUGINS_FILE"
echo "[]." >"$RABBITMQ_ADVANCED_CONFIG_FILE"
cat >"$RABBITMQ_CONFIG_FILE" <<EOF
listeners.tcp.default = 127.0.0.1:$AMQP_PORT
loopback_users.guest = true
log.console = false
log.file.level = warning
EOF
/usr/bin/python3 -c 'import secrets; print(secrets.token_hex(20), end="")' >"$HOME/.erlang.cookie"
chmod 400 "$HOME/.erlang.cookie"

# shellcheck disable=SC2317 # also called through bg_wait
ctl() { timeout --kill-after=5 "$1" "$SBIN/rabbitmqctl" -n "$NODE_NAME" "${@:2}"; }

# wait_gone PID SECONDS: true once PID has exited, false if it is still there after SECONDS.
# shellcheck disable=SC2317
wait_gone() {
  local _
  for _ in $(seq $(($2 * 10))); do
    kill -0 "$1" 2>/dev/null || return 0
    sleep 0.1
  done
  ! kill -0 "$1" 2>/dev/null
}
# shellcheck disable=SC2317 # called by the EXIT trap
stop_node() {
  if [ -n "$SERVER_PID" ] && kill -0 "$SERVER_PID" 2>/dev/null; then
    # rabbitmqctl stop: the orderly way, for a node that finished booting (one still booting does not act on
    # it). SIGTERM to the rabbitmq-server script makes it stop the VM itself; SIGKILL is the last resort.
    if [ -n "$BEAM_PID" ]; then ctl "$STOP_TIMEOUT_S" stop >/dev/null 2>&1 || true; fi
    if [ -z "$BEAM_PID" ] || ! wait_gone "$SERVER_PID" "$STOP_TIMEOUT_S"; then
      kill -TERM "$SERVER_PID" 2>/dev/null || true
      if ! wait_gone "$SERVER_PID" 10; then
        echo "bench-rabbitmq: node did not stop within $((STOP_TIMEOUT_S + 10))s; killing it" >&2
        local vm
        vm=${BEAM_PID:-$(ps -o pid= --ppid "$SERVER_PID" 2>/dev/null || true)}
        # shellcheck disable=SC2086 # vm is a list of pids
        if [ -n "$vm" ]; then kill -KILL $vm 2>/dev/null || true; fi
        kill -KILL "$SERVER_PID" 2>/dev/null || true
      fi
    fi
    wait "$SERVER_PID" 2>/dev/null || true
  fi
  # The VM started an epmd of its own on EPMD_PORT (daemonized, so not our child); nothing else uses that port.
  if command -v epmd >/dev/null; then epmd -port "$EPMD_PORT" -kill >/dev/null 2>&1 || true; fi
}
# bg_wait CMD...: runs CMD in the background and waits for it. Bash runs a trap only once the foreground
# command is done; `wait` is interrupted at once, so a signal ends the run promptly (cleanup ends CMD).
bg_wait() {
  "$@" &
  FOREGROUND_PID=$!
  local rc=0
  wait "$FOREGROUND_PID" || rc=$?
  FOREGROUND_PID=""
  return "$rc"
}
# descendants PID: the pids of every process below PID.
# shellcheck disable=SC2317
descendants() {
  local child
  for child in $(ps -o pid= --ppid "$1" 2>/dev/null); do
    echo "$child"
    descendants "$child"
  done
}
# Ends what bg_wait runs, with its children: timeout passes SIGTERM on, but a rabbitmqctl VM that is still
# connecting takes its time over it (and would start another epmd meanwhile), so what is left after 5 s is killed.
# shellcheck disable=SC2317
stop_foreground() {
  if [ -n "$FOREGROUND_PID" ] && kill -0 "$FOREGROUND_PID" 2>/dev/null; then
    local pids pid
    pids="$FOREGROUND_PID $(descendants "$FOREGROUND_PID")"
    # shellcheck disable=SC2086 # a list of pids
    kill -TERM $pids 2>/dev/null || true
    for pid in $pids; do
      wait_gone "$pid" 5 || kill -KILL "$pid" 2>/dev/null || true
    done
    wait "$FOREGROUND_PID" 2>/dev/null || true
  fi
}
# shellcheck disable=SC2317
cleanup() { stop_foreground; stop_node; rm -rf "$NODE_DIR"; }
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

echo "bench-rabbitmq: starting node $NODE_NAME (AMQP 127.0.0.1:$AMQP_PORT, distribution $DIST_PORT, epmd $EPMD_PORT)"
"$SBIN/rabbitmq-server" >"$RABBITMQ_LOG_BASE/startup.log" 2>&1 &
SERVER_PID=$!

# await_startup needs the node reachable; until its VM registered with epmd it fails at once, so it is retried
# until the node answers or the start bound passes.
started=0
deadline=$((SECONDS + START_TIMEOUT_S))
while [ "$SECONDS" -lt "$deadline" ]; do
  kill -0 "$SERVER_PID" 2>/dev/null || break
  if bg_wait ctl $((deadline - SECONDS + 1)) await_startup --timeout $((deadline - SECONDS + 1)) >/dev/null 2>&1; then
    started=1
    break
  fi
  sleep 0.5
done
if [ "$started" != 1 ]; then
  echo "bench-rabbitmq: node $NODE_NAME did not start within ${START_TIMEOUT_S}s; its startup log and log:" >&2
  tail -n 40 "$RABBITMQ_LOG_BASE/startup.log" "$RABBITMQ_LOG_BASE"/*.log >&2 2>/dev/null || true
  exit 1
fi

BEAM_PID=$(cat "$RABBITMQ_PID_FILE" 2>/dev/null || true)
if [ -z "$BEAM_PID" ] || [ "$(cat "/proc/$BEAM_PID/comm" 2>/dev/null)" != beam.smp ]; then
  echo "bench-rabbitmq: the node's pid file ($RABBITMQ_PID_FILE) does not name a running beam.smp" >&2
  exit 1
fi
echo "bench-rabbitmq: node up, beam.smp pid $BEAM_PID"

read -r -a extra_args <<<"${RABBITMQ_BENCH_ARGS:-}"
status=0
bg_wait timeout --kill-after=10 "$RUN_TIMEOUT_S" "$ANCHOR_BIN" --host 127.0.0.1 --port "$AMQP_PORT" \
  --server-pid "$BEAM_PID" --json "$JSON" "${extra_args[@]}" "$@" || status=$?
if [ "$status" = 124 ]; then echo "bench-rabbitmq: the anchor did not finish within ${RUN_TIMEOUT_S}s" >&2; fi
exit "$status"
