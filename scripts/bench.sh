#!/usr/bin/env bash
# `make bench`: starts a broker on a free loopback port against the project PostgreSQL, runs
# queen-bench against it (per batch size the raw-push anchor then push, the raw-lease anchor then
# pop+ack; long-poll wake latency; the steadiness rounds), then stops the broker; then the
# growth run (how cost grows with partitions, consumer groups, payload size and brokers on one
# database, and latency under an open-loop load) on a fresh broker and two more; then the
# parked long polls and the spool drain, each on a fresh broker; then two brokers joined by the mesh for the cross-broker wake latency (push on one, long poll on the other).
#
# Environment (all optional):
#   BUILD                 build directory holding queen-broker and queen-bench (default ./build)
#   PGPORT, PG_DB         project PostgreSQL port and database (default 55432, queen)
#   BENCH_JSON            JSON results file (default bench/results.json)
#   BENCH_DB_POOL_SIZE    DB_POOL_SIZE of the bench broker (default 20; the cluster is shared)
#   BENCH_TIMEOUT_S       hard limit on each of the history and status runs (default 170)
#   BENCH_MAIN_TIMEOUT_S  hard limit on the main run (default: computed from its scenarios, main_timeout below)
#   BENCH_ALLOW_NON_DURABLE=1  run even when fsync or synchronous_commit is off (figures then say so)
#   BENCH_ARGS            extra queen-bench flags, e.g. "--duration 5 --batches 100"
#   BENCH_SPOOL_EVENTS    events of the spool drain scenario (default 50000)
#   BENCH_REPLAY_LANES    FILE_BUFFER_REPLAY_LANES of its second run (default 4; the first runs with 1)
#   BENCH_RAW_DB          scratch database of the raw-push and raw-lease anchors, same cluster (default
#                         queen_bench_raw; created when missing, its tables recreated by every run)
#   BENCH_STEADY=0        skip the steady scenario (ten push-then-pop+ack rounds on one queue)
#   BENCH_STREAM=0        skip the stream scenario (a tumbling-window stream query at batch 100: cycles/s, msg/s)
#   BENCH_GROW_PARTITIONS=0  skip grow-partitions (push, pop+ack with 10 -> 1,000 -> 100,000 partitions)
#   BENCH_GROW_GROUPS=0   skip grow-groups (pop+ack with 1 -> 10 -> 50 consumer groups on one queue)
#   BENCH_GROW_PAYLOAD=0  skip grow-payload (push, pop+ack of 100 B -> 64 KiB -> 1 MiB payloads)
#   BENCH_GROW_BROKERS=0  skip grow-brokers (push, pop+ack over 1 -> 3 brokers on one database; two more brokers)
#   BENCH_LATENCY=0       skip latency (p50/p99/p999 of push and pop at 50% and 90% of capacity, open loop)
#   BENCH_GROWTH_ARGS     extra queen-bench flags for the growth run, e.g. "--growth-seconds 3"
#   BENCH_HISTORY=0       skip the history scenario (push and pop+ack on a database with 10M messages)
#   BENCH_HISTORY_DB      its database (default queen_bench_history; kept between runs, made once)
#   BENCH_HISTORY_REBUILD=1  drop and regenerate that database even when its shape is right
#   BENCH_HISTORY_ARGS    extra queen-bench flags for the history run (default: BENCH_ARGS; the run always
#                         passes --prefill-max 50000 first, so few pre-filled messages outlive it)
#   BENCH_STATUS=0        skip the status scenario (every status/resources/analytics route on the history database)
#   BENCH_STATUS_SAMPLES  requests per route of the status scenario (default 20)
#   BENCH_ONLY=status     run only the status scenario (and the history database it needs)
#   BENCH_ONLY=growth     run only the growth run (the grow-* scenarios and latency)
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-$ROOT/build}
PGPORT=${PGPORT:-55432}
PG_DB=${PG_DB:-queen}
BROKER_BIN=${QUEEN_BROKER_BIN:-$BUILD/queen-broker}
BENCH_BIN=${QUEEN_BENCH_BIN:-$BUILD/queen-bench}
BENCH_JSON=${BENCH_JSON:-$ROOT/bench/results.json}
BENCH_DB_POOL_SIZE=${BENCH_DB_POOL_SIZE:-20}
BENCH_TIMEOUT_S=${BENCH_TIMEOUT_S:-170}
BROKER_READY_TIMEOUT_S=30
BROKER_STOP_TIMEOUT_S=10
BENCH_STARTED_AT=$(date +%s)

for binary in "$BROKER_BIN" "$BENCH_BIN"; do
  [ -x "$binary" ] || { echo "bench: $binary is missing; run 'make build' (or set BUILD)" >&2; exit 1; }
done

# pg_url DB: the libpq URL queen-bench measures PostgreSQL through (--pg-url, --raw-pg-url).
pg_url() { echo "postgresql://postgres:postgres@127.0.0.1:$PGPORT/$1"; }
pg_setting() { psql -h 127.0.0.1 -p "$PGPORT" -U postgres -d "$PG_DB" -tAc "SHOW $1"; }
FSYNC=$(pg_setting fsync)
SYNC_COMMIT=$(pg_setting synchronous_commit)
PG_VERSION=$(pg_setting server_version | cut -d' ' -f1)
echo "bench: PostgreSQL $PG_VERSION on 127.0.0.1:$PGPORT db $PG_DB: fsync=$FSYNC synchronous_commit=$SYNC_COMMIT"
if [ "$FSYNC" != on ] || [ "$SYNC_COMMIT" != on ]; then
  if [ "${BENCH_ALLOW_NON_DURABLE:-0}" != 1 ]; then
    echo "bench: PostgreSQL is not running with durable settings; restart it with scripts/pg.sh (without PG_FAST)" >&2
    echo "bench: or set BENCH_ALLOW_NON_DURABLE=1 to measure anyway" >&2
    exit 1
  fi
  echo "bench: WARNING: non-durable PostgreSQL; these figures are not comparable to the targets" >&2
fi

WORK_DIR=$(mktemp -d /tmp/queen-bench.XXXXXX)
BROKER_PIDS=()
# shellcheck disable=SC2317 # called by the EXIT trap
stop_brokers() {
  local pid
  for pid in "${BROKER_PIDS[@]}"; do
    kill -0 "$pid" 2>/dev/null && kill -TERM "$pid" 2>/dev/null || true
  done
  for pid in "${BROKER_PIDS[@]}"; do
    for _ in $(seq $((BROKER_STOP_TIMEOUT_S * 10))); do
      kill -0 "$pid" 2>/dev/null || break
      sleep 0.1
    done
    if kill -0 "$pid" 2>/dev/null; then
      echo "bench: broker $pid did not stop within ${BROKER_STOP_TIMEOUT_S}s; killing it" >&2
      kill -KILL "$pid" 2>/dev/null || true
    fi
    wait "$pid" 2>/dev/null || true
  done
  BROKER_PIDS=()
}
# shellcheck disable=SC2317
cleanup() {
  stop_brokers
  rm -rf "$WORK_DIR"
  echo "bench: make bench ran for $(($(date +%s) - BENCH_STARTED_AT)) s"
}
trap cleanup EXIT

# bench_arg FLAG DEFAULT [FLAGS]: the last value FLAGS (default BENCH_ARGS) gives FLAG (queen-bench takes
# the last one too).
bench_arg() {
  local flag=$1 value=$2 previous="" word
  # shellcheck disable=SC2086 # a list of flags
  for word in ${3-${BENCH_ARGS:-}}; do
    [ "$previous" = "$flag" ] && value=$word
    previous=$word
  done
  echo "$value"
}
free_port() { /usr/bin/python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

# start_broker NAME PORT [VAR=value ...]: starts a broker in the background, waits for /health,
# sets STARTED_PID. Extra VAR=value pairs go to its environment.
start_broker() {
  local name=$1 port=$2
  shift 2
  env PORT="$port" HOST=127.0.0.1 \
    PG_HOST=127.0.0.1 PG_PORT="$PGPORT" PG_DB="$PG_DB" PG_USER="${PG_USER:-queen_broker}" PG_PASSWORD="${PG_PASSWORD:-queen_broker}" \
    DB_POOL_SIZE="$BENCH_DB_POOL_SIZE" FILE_BUFFER_DIR="$WORK_DIR/spool-$name" QUEEN_SERVER_ID="bench-$name" \
    LOG_LEVEL=warn "$@" "$BROKER_BIN" >"$WORK_DIR/$name.log" 2>&1 &
  STARTED_PID=$!
  BROKER_PIDS+=("$STARTED_PID")
  for _ in $(seq $((BROKER_READY_TIMEOUT_S * 10))); do
    if ! kill -0 "$STARTED_PID" 2>/dev/null; then break; fi
    if curl -sf -o /dev/null --max-time 2 "http://127.0.0.1:$port/health"; then return 0; fi
    sleep 0.1
  done
  echo "bench: broker $name did not become healthy on port $port within ${BROKER_READY_TIMEOUT_S}s; its log:" >&2
  tail -n 40 "$WORK_DIR/$name.log" >&2 || true
  exit 1
}

# settle_database DB: vacuums DB after a run deleted its queues (the main run's are about two million messages at
# the defaults). Autovacuum would clean them up during the next measurement, on the same two cores, and charge it
# for them: on 2026-12-03 autovacuum finished with queen.messages 24 s into the RabbitMQ anchor that runs next,
# which moved about half as much as in the run before. Vacuuming here keeps each measurement to its own work.
settle_database() {
  psql -h 127.0.0.1 -p "$PGPORT" -U postgres -d "$1" -qc "VACUUM (ANALYZE)"
}

status=0
if [ -z "${BENCH_ONLY:-}" ]; then
PORT=$(free_port)
start_broker main "$PORT"
BROKER_PID=$STARTED_PID
echo "bench: broker pid $BROKER_PID on http://127.0.0.1:$PORT (DB_POOL_SIZE=$BENCH_DB_POOL_SIZE)"

# The raw-PostgreSQL anchors' scratch database, in the same cluster as the broker's.
RAW_DB=${BENCH_RAW_DB:-queen_bench_raw}
psql -h 127.0.0.1 -p "$PGPORT" -U postgres -d postgres -tAc "select 1 from pg_database where datname = '$RAW_DB'" |
  grep -q 1 || psql -h 127.0.0.1 -p "$PGPORT" -U postgres -d postgres -qc "create database \"$RAW_DB\""
MAIN_SCENARIOS=raw-push,push,raw-lease,popack,wake
[ "${BENCH_STREAM:-1}" = 0 ] || MAIN_SCENARIOS=$MAIN_SCENARIOS,stream
[ "${BENCH_STEADY:-1}" = 0 ] || MAIN_SCENARIOS=$MAIN_SCENARIOS,steady

# The main run's bound, from what it runs: per batch size the two anchors and the two broker
# scenarios (4 durations), the raw-lease pre-fill (at most ~15 s) and the pop+ack pre-fill (at most
# 30 s, queen-bench's own limit) and 10 s of set-up; the wake scenario (at most one duration); the
# stream scenario (its pre-fill, at most 30 s, and one duration); the steady rounds; 40 s of start-up,
# cleanup and slack.
main_timeout() {
  local duration batches rounds round_seconds steady_seconds=0 stream_seconds=0
  duration=$(bench_arg --duration 10)
  batches=$(bench_arg --batches 1,10,100 | tr ',' '\n' | grep -c .)
  rounds=$(bench_arg --steady-rounds 10)
  round_seconds=$(bench_arg --steady-round-seconds 10)
  case ",$(bench_arg --scenario "$MAIN_SCENARIOS")," in *,steady,*) steady_seconds=$((rounds * ${round_seconds%.*} + 10)) ;; esac
  case ",$(bench_arg --scenario "$MAIN_SCENARIOS")," in *,stream,*) stream_seconds=$((${duration%.*} + 40)) ;; esac
  awk -v d="$duration" -v b="$batches" -v s="$((steady_seconds + stream_seconds))" 'BEGIN { printf "%d", b * (4 * d + 55) + d + s + 40 }'
}
MAIN_TIMEOUT_S=${BENCH_MAIN_TIMEOUT_S:-$(main_timeout)}
echo "bench: main run: $MAIN_SCENARIOS, bounded by ${MAIN_TIMEOUT_S}s; anchors in database $RAW_DB"

# shellcheck disable=SC2086 # BENCH_ARGS is a list of flags
timeout --signal=TERM "$MAIN_TIMEOUT_S" "$BENCH_BIN" \
  --url "http://127.0.0.1:$PORT" --broker-pid "$BROKER_PID" --json "$BENCH_JSON" \
  --pg-url "$(pg_url "$PG_DB")" --raw-pg-url "$(pg_url "$RAW_DB")" --scenario "$MAIN_SCENARIOS" \
  --label "postgres=$PG_VERSION" --label "fsync=$FSYNC" --label "synchronous_commit=$SYNC_COMMIT" \
  --label "db_pool_size=$BENCH_DB_POOL_SIZE" ${BENCH_ARGS:-} || status=$?
if [ "$status" = 124 ]; then echo "bench: stopped after the ${MAIN_TIMEOUT_S}s limit" >&2; fi
if ! kill -0 "$BROKER_PID" 2>/dev/null; then
  echo "bench: the broker exited during the run; its log:" >&2
  tail -n 40 "$WORK_DIR/main.log" >&2 || true
  status=1
elif [ "$status" != 0 ]; then
  echo "bench: queen-bench failed (exit $status); last broker log lines:" >&2
  tail -n 20 "$WORK_DIR/main.log" >&2 || true
fi
stop_brokers
[ "$status" = 0 ] || exit "$status"
settle_database "$PG_DB"

# The same load against RabbitMQ quorum queues on this box, in this run (skipped, saying so, when
# rabbitmq-server or the anchor is not installed; BENCH_RABBITMQ=0 skips it).
if [ "${BENCH_RABBITMQ:-1}" != 0 ]; then
  echo "bench: RabbitMQ anchor (quorum queues, publisher confirms, manual acks)"
  if BUILD="$BUILD" "$ROOT/scripts/bench-rabbitmq.sh" --json "${BENCH_JSON%.json}-rabbitmq.json" ${BENCH_RABBITMQ_ARGS:---duration 8}; then
    python3 "$ROOT/bench/rabbitmq_ratio.py" "$BENCH_JSON" "${BENCH_JSON%.json}-rabbitmq.json" ||
      echo "bench: no ratio to RabbitMQ (exit $?)" >&2
  else
    echo "bench: RabbitMQ anchor failed (exit $?)" >&2
  fi
fi
fi  # BENCH_ONLY

# Growth: how cost grows (partitions, consumer groups, payload size, brokers on one database) and
# latency under an open-loop load, on a fresh broker; grow-brokers starts two more against the same
# database. Each scenario has its toggle; the run's bound is computed from what it runs.
GROWTH_SCENARIOS=""
[ "${BENCH_GROW_PARTITIONS:-1}" = 0 ] || GROWTH_SCENARIOS=$GROWTH_SCENARIOS,grow-partitions
[ "${BENCH_GROW_GROUPS:-1}" = 0 ] || GROWTH_SCENARIOS=$GROWTH_SCENARIOS,grow-groups
[ "${BENCH_GROW_PAYLOAD:-1}" = 0 ] || GROWTH_SCENARIOS=$GROWTH_SCENARIOS,grow-payload
[ "${BENCH_GROW_BROKERS:-1}" = 0 ] || GROWTH_SCENARIOS=$GROWTH_SCENARIOS,grow-brokers
[ "${BENCH_LATENCY:-1}" = 0 ] || GROWTH_SCENARIOS=$GROWTH_SCENARIOS,latency
GROWTH_SCENARIOS=${GROWTH_SCENARIOS#,}
# The growth run's bound: per grow-partitions step two windows and its set-up limits (creating the
# partitions 180 s, draining them 90 s, the fill 30 s; bench/growth.cpp); per grow-groups step a window and its
# 30 s fill; per grow-brokers step two windows; per grow-payload step two windows and 30 s (a push of 1 MiB
# sent just before the window's end is still answered); latency four windows plus the
# phases (one window each) and a 30 s top-up per pop phase; 10 s of set-up per step; 60 s of
# start-up and queue deletion.
growth_timeout() {
  local args=${BENCH_GROWTH_ARGS:-} g parts groups payloads percents brokers=3 total=60
  g=$(bench_arg --growth-seconds 5 "$args")
  g=${g%.*}; g=$((g + 1))
  parts=$(bench_arg --growth-partitions 10,1000,100000 "$args" | tr ',' '\n' | grep -c .)
  groups=$(bench_arg --growth-groups 1,10,50 "$args" | tr ',' '\n' | grep -c .)
  payloads=$(bench_arg --growth-payloads 100,65536,1048576 "$args" | tr ',' '\n' | grep -c .)
  percents=$(bench_arg --latency-percents 50,90 "$args" | tr ',' '\n' | grep -c .)
  case ",$GROWTH_SCENARIOS," in *,grow-partitions,*) total=$((total + parts * (2 * g + 310))) ;; esac
  case ",$GROWTH_SCENARIOS," in *,grow-groups,*) total=$((total + groups * (g + 40))) ;; esac
  case ",$GROWTH_SCENARIOS," in *,grow-payload,*) total=$((total + payloads * (2 * g + 40))) ;; esac
  case ",$GROWTH_SCENARIOS," in *,grow-brokers,*) total=$((total + brokers * (2 * g + 10))) ;; esac
  case ",$GROWTH_SCENARIOS," in *,latency,*) total=$((total + (2 + 2 * percents) * g + 30 * percents + 10)) ;; esac
  echo "$total"
}
if [ -n "$GROWTH_SCENARIOS" ] && { [ -z "${BENCH_ONLY:-}" ] || [ "$BENCH_ONLY" = growth ]; }; then
  PORT=$(free_port)
  start_broker growth "$PORT"
  GROWTH_PID=$STARTED_PID
  EXTRA_BROKERS=()
  if [ "${BENCH_GROW_BROKERS:-1}" != 0 ]; then
    for name in growth-2 growth-3; do
      EXTRA_PORT=$(free_port)
      start_broker "$name" "$EXTRA_PORT"
      EXTRA_BROKERS+=(--extra-url "http://127.0.0.1:$EXTRA_PORT" --extra-broker-pid "$STARTED_PID")
    done
  fi
  GROWTH_TIMEOUT_S=$(growth_timeout)
  echo "bench: growth run: $GROWTH_SCENARIOS on http://127.0.0.1:$PORT (pid $GROWTH_PID, $((${#EXTRA_BROKERS[@]} / 4)) more brokers), bounded by ${GROWTH_TIMEOUT_S}s"
  # shellcheck disable=SC2086 # BENCH_GROWTH_ARGS is a list of flags
  timeout --signal=TERM "$GROWTH_TIMEOUT_S" "$BENCH_BIN" --scenario "$GROWTH_SCENARIOS" \
    --url "http://127.0.0.1:$PORT" --broker-pid "$GROWTH_PID" "${EXTRA_BROKERS[@]}" \
    --json "${BENCH_JSON%.json}-growth.json" --pg-url "$(pg_url "$PG_DB")" --queue-prefix bench-growth \
    --label "postgres=$PG_VERSION" --label "fsync=$FSYNC" --label "synchronous_commit=$SYNC_COMMIT" \
    --label "db_pool_size=$BENCH_DB_POOL_SIZE" ${BENCH_GROWTH_ARGS:-} || status=$?
  if [ "$status" = 124 ]; then echo "bench: growth run stopped after the ${GROWTH_TIMEOUT_S}s limit" >&2; fi
  stop_brokers
  [ "$status" = 0 ] || exit "$status"
  settle_database "$PG_DB"
fi
[ "${BENCH_ONLY:-}" != growth ] || exit 0

# History: push and pop+ack again on a database holding 10 million consumed messages over 100,000
# partitions (bench/history.sql), pop+ack consuming a kept queue with 5,000 partitions. The database
# is made once and kept while its comment names the same shape; new migrations are deployed to it.
HISTORY_DB=${BENCH_HISTORY_DB:-queen_bench_history}
HISTORY_QUEUE=bench-history-hot
# The last migration bench/history.sql knows the tables of (migrations/sqitch.plan), tag-qualified: release
# 1.0.0 reworked it, and the generator writes for the 0.9.0 schema it belongs to.
HISTORY_SCHEMA_CHANGE=encryption@v0.9.0
# Deploy scripts are edited in place until the schema is released, so the shape names a digest of
# them and of the generator: a kept database is regenerated when either changed.
HISTORY_SCHEMA_DIGEST=$(cat "$ROOT"/migrations/sqitch.plan "$ROOT"/migrations/deploy/*.sql "$ROOT/bench/history.sql" |
  sha256sum | cut -c1-12)
HISTORY_SHAPE="queen bench history v1: 100 queues x 1000 partitions x 100 messages; $HISTORY_QUEUE 5000 partitions x 20; schema $HISTORY_SCHEMA_DIGEST"
history_db_shape() {
  psql -h 127.0.0.1 -p "$PGPORT" -U postgres -d postgres -tAc \
    "select shobj_description(oid, 'pg_database') from pg_database where datname = '$HISTORY_DB'"
}
ensure_history_db() {
  local started
  if [ "${BENCH_HISTORY_REBUILD:-0}" != 1 ] && [ "$(history_db_shape)" = "$HISTORY_SHAPE" ]; then
    PG_DB=$HISTORY_DB "$ROOT/scripts/db-deploy.sh" >"$WORK_DIR/history-deploy.log" 2>&1 ||
      { tail -n 20 "$WORK_DIR/history-deploy.log" >&2; return 1; }
    echo "bench: history database $HISTORY_DB kept ($HISTORY_SHAPE)"
    return 0
  fi
  echo "bench: generating history database $HISTORY_DB ($HISTORY_SHAPE)"
  started=$(date +%s)
  psql -h 127.0.0.1 -p "$PGPORT" -U postgres -d postgres -qc "drop database if exists \"$HISTORY_DB\""
  psql -h 127.0.0.1 -p "$PGPORT" -U postgres -d postgres -qc "create database \"$HISTORY_DB\""
  # The schema the generator writes for, then the history, then the later migrations: they fill
  # whatever they add from existing rows, as they must on any database in use.
  (cd "$ROOT" && sqitch deploy --verify --to "$HISTORY_SCHEMA_CHANGE" "db:pg://postgres@127.0.0.1:$PGPORT/$HISTORY_DB") \
    >"$WORK_DIR/history-deploy.log" 2>&1 || { tail -n 20 "$WORK_DIR/history-deploy.log" >&2; return 1; }
  timeout --signal=TERM "${BENCH_HISTORY_GEN_TIMEOUT_S:-1200}" psql -h 127.0.0.1 -p "$PGPORT" -U postgres \
    -d "$HISTORY_DB" -v ON_ERROR_STOP=1 -v hot_queue="$HISTORY_QUEUE" -f "$ROOT/bench/history.sql" \
    >"$WORK_DIR/history-gen.log" 2>&1 || { tail -n 20 "$WORK_DIR/history-gen.log" >&2; return 1; }
  PG_DB=$HISTORY_DB "$ROOT/scripts/db-deploy.sh" >>"$WORK_DIR/history-deploy.log" 2>&1 ||
    { tail -n 20 "$WORK_DIR/history-deploy.log" >&2; return 1; }
  psql -h 127.0.0.1 -p "$PGPORT" -U postgres -d postgres -qc "comment on database \"$HISTORY_DB\" is '$HISTORY_SHAPE'"
  echo "bench: history database generated in $(($(date +%s) - started)) s"
}
if [ "${BENCH_HISTORY:-1}" != 0 ] && [ "${BENCH_ONLY:-}" != status ]; then
  ensure_history_db
  PORT=$(free_port)
  start_broker history "$PORT" PG_DB="$HISTORY_DB"
  echo "bench: history on http://127.0.0.1:$PORT (database $HISTORY_DB; pop+ack consumes $HISTORY_QUEUE)"
  # shellcheck disable=SC2086 # flags
  timeout --signal=TERM "$BENCH_TIMEOUT_S" "$BENCH_BIN" --scenario push,popack \
    --url "http://127.0.0.1:$PORT" --broker-pid "$STARTED_PID" --json "${BENCH_JSON%.json}-history.json" \
    --pg-url "$(pg_url "$HISTORY_DB")" --popack-queue "$HISTORY_QUEUE" --prefill-max 50000 --queue-prefix bench-history --label "history=$HISTORY_DB" \
    --label "postgres=$PG_VERSION" --label "fsync=$FSYNC" --label "synchronous_commit=$SYNC_COMMIT" \
    --label "db_pool_size=$BENCH_DB_POOL_SIZE" ${BENCH_HISTORY_ARGS:-${BENCH_ARGS:-}} || status=$?
  stop_brokers
  [ "$status" = 0 ] || exit "$status"
fi

# Status: every status, resources and analytics route timed on the history database (10M messages),
# after one POST /api/v1/stats/refresh; brokers flush their figures every second so the broker series exist.
if [ "${BENCH_STATUS:-1}" != 0 ]; then
  ensure_history_db
  PORT=$(free_port)
  start_broker status "$PORT" PG_DB="$HISTORY_DB" BROKER_STATS_FLUSH_INTERVAL_MS=1000
  echo "bench: status routes on http://127.0.0.1:$PORT (database $HISTORY_DB)"
  timeout --signal=TERM "$BENCH_TIMEOUT_S" /usr/bin/python3 "$ROOT/bench/status_routes.py" \
    --url "http://127.0.0.1:$PORT" --queue "$HISTORY_QUEUE" --samples "${BENCH_STATUS_SAMPLES:-20}" \
    --json "${BENCH_JSON%.json}-status.json" || status=$?
  stop_brokers
  [ "$status" = 0 ] || exit "$status"
fi
[ "${BENCH_ONLY:-}" != status ] || exit 0

# Parked long polls (BENCH_PARKED_POLLS, default 10000) on a fresh broker: /health and push latency
# idle and with the polls parked, wake latency, broker RSS and threads.
PORT=$(free_port)
start_broker parked "$PORT"
echo "bench: parked long polls on http://127.0.0.1:$PORT"
timeout --signal=TERM 240 /usr/bin/python3 "$ROOT/bench/parked_polls.py" --url "http://127.0.0.1:$PORT" \
  --broker-pid "$STARTED_PID" --polls "${BENCH_PARKED_POLLS:-10000}" \
  --json "${BENCH_JSON%.json}-parked.json" || status=$?
stop_brokers
[ "$status" = 0 ] || exit "$status"

# Spool drain: 50,000 events spooled under push maintenance on a fresh broker, then the time to replay
# them once maintenance is off; with one lane (one batch at a time) and with BENCH_REPLAY_LANES (default 4).
for lanes in 1 "${BENCH_REPLAY_LANES:-4}"; do
  PORT=$(free_port)
  start_broker "drain-$lanes" "$PORT" FILE_BUFFER_REPLAY_LANES="$lanes"
  echo "bench: spool drain on http://127.0.0.1:$PORT (FILE_BUFFER_REPLAY_LANES=$lanes)"
  timeout --signal=TERM 180 /usr/bin/python3 "$ROOT/bench/spool_drain.py" --url "http://127.0.0.1:$PORT" \
    --broker-pid "$STARTED_PID" --events "${BENCH_SPOOL_EVENTS:-50000}" --lanes "$lanes" --max-batch 100 \
    --label "postgres=$PG_VERSION" --label "fsync=$FSYNC" --label "synchronous_commit=$SYNC_COMMIT" \
    --json "${BENCH_JSON%.json}-drain-$lanes.json" || status=$?
  stop_brokers
  [ "$status" = 0 ] || exit "$status"
done

# Cross-broker wake over the mesh: push on A, long poll parked on B. B re-checks the database
# only every 5 s, so a wake well under that came over the mesh.
PORT_A=$(free_port); PORT_B=$(free_port); MESH_A=$(free_port); MESH_B=$(free_port)
SECRET=$(/usr/bin/python3 -c 'import secrets; print(secrets.token_hex(32))')
start_broker mesh-a "$PORT_A" QUEEN_MESH_PORT="$MESH_A" QUEEN_MESH_PEERS="127.0.0.1:$MESH_B" QUEEN_SYNC_SECRET="$SECRET"
start_broker mesh-b "$PORT_B" QUEEN_MESH_PORT="$MESH_B" QUEEN_MESH_PEERS="127.0.0.1:$MESH_A" QUEEN_SYNC_SECRET="$SECRET" \
  POP_WAIT_INITIAL_INTERVAL_MS=5000 POP_WAIT_MAX_INTERVAL_MS=5000
sleep 1  # let the mesh links connect
echo "bench: mesh wake: push on http://127.0.0.1:$PORT_A, long poll on http://127.0.0.1:$PORT_B (floor 5000 ms)"
timeout --signal=TERM 60 "$BENCH_BIN" --scenario wake --url "http://127.0.0.1:$PORT_A" \
  --consumer-url "http://127.0.0.1:$PORT_B" --broker-pid "$STARTED_PID" --json "${BENCH_JSON%.json}-mesh.json" \
  --label "postgres=$PG_VERSION" --label "fsync=$FSYNC" --label "synchronous_commit=$SYNC_COMMIT" \
  --label "pop_wait_floor_ms=5000" || status=$?
exit "$status"
