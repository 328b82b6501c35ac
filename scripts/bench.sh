#!/usr/bin/env bash
# `make bench`: starts a broker on a free loopback port against the project PostgreSQL, runs
# queen-bench against it (push, pop+ack, long-poll wake latency), then stops the broker.
#
# Environment (all optional):
#   BUILD                 build directory holding queen-broker and queen-bench (default ./build)
#   PGPORT, PG_DB         project PostgreSQL port and database (default 55432, queen)
#   BENCH_JSON            JSON results file (default bench/results.json)
#   BENCH_DB_POOL_SIZE    DB_POOL_SIZE of the bench broker (default 20; the cluster is shared)
#   BENCH_TIMEOUT_S       hard limit on the whole bench run (default 170)
#   BENCH_ALLOW_NON_DURABLE=1  run even when fsync or synchronous_commit is off (figures then say so)
#   BENCH_ARGS            extra queen-bench flags, e.g. "--duration 5 --batches 100"
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

for binary in "$BROKER_BIN" "$BENCH_BIN"; do
  [ -x "$binary" ] || { echo "bench: $binary is missing; run 'make build' (or set BUILD)" >&2; exit 1; }
done

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
BROKER_LOG=$WORK_DIR/broker.log
BROKER_PID=
# shellcheck disable=SC2317 # called by the EXIT trap
stop_broker() {
  if [ -n "$BROKER_PID" ] && kill -0 "$BROKER_PID" 2>/dev/null; then
    kill -TERM "$BROKER_PID" 2>/dev/null || true
    for _ in $(seq $((BROKER_STOP_TIMEOUT_S * 10))); do
      kill -0 "$BROKER_PID" 2>/dev/null || break
      sleep 0.1
    done
    if kill -0 "$BROKER_PID" 2>/dev/null; then
      echo "bench: broker did not stop within ${BROKER_STOP_TIMEOUT_S}s; killing it" >&2
      kill -KILL "$BROKER_PID" 2>/dev/null || true
    fi
    wait "$BROKER_PID" 2>/dev/null || true
  fi
  rm -rf "$WORK_DIR"
}
trap stop_broker EXIT

PORT=$(/usr/bin/python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
PORT=$PORT HOST=127.0.0.1 \
  PG_HOST=127.0.0.1 PG_PORT="$PGPORT" PG_DB="$PG_DB" PG_USER=postgres PG_PASSWORD=postgres \
  DB_POOL_SIZE="$BENCH_DB_POOL_SIZE" FILE_BUFFER_DIR="$WORK_DIR/spool" QUEEN_SERVER_ID=bench LOG_LEVEL=warn \
  "$BROKER_BIN" >"$BROKER_LOG" 2>&1 &
BROKER_PID=$!

ready=0
for _ in $(seq $((BROKER_READY_TIMEOUT_S * 10))); do
  if ! kill -0 "$BROKER_PID" 2>/dev/null; then break; fi
  if curl -sf -o /dev/null --max-time 2 "http://127.0.0.1:$PORT/health"; then ready=1; break; fi
  sleep 0.1
done
if [ "$ready" != 1 ]; then
  echo "bench: broker did not become healthy on port $PORT within ${BROKER_READY_TIMEOUT_S}s; its log:" >&2
  tail -n 40 "$BROKER_LOG" >&2 || true
  exit 1
fi
echo "bench: broker pid $BROKER_PID on http://127.0.0.1:$PORT (DB_POOL_SIZE=$BENCH_DB_POOL_SIZE)"

status=0
# shellcheck disable=SC2086 # BENCH_ARGS is a list of flags
timeout --signal=TERM "$BENCH_TIMEOUT_S" "$BENCH_BIN" \
  --url "http://127.0.0.1:$PORT" --broker-pid "$BROKER_PID" --json "$BENCH_JSON" \
  --label "postgres=$PG_VERSION" --label "fsync=$FSYNC" --label "synchronous_commit=$SYNC_COMMIT" \
  --label "db_pool_size=$BENCH_DB_POOL_SIZE" ${BENCH_ARGS:-} || status=$?
if [ "$status" = 124 ]; then echo "bench: stopped after the ${BENCH_TIMEOUT_S}s limit" >&2; fi
if ! kill -0 "$BROKER_PID" 2>/dev/null; then
  echo "bench: the broker exited during the run; its log:" >&2
  tail -n 40 "$BROKER_LOG" >&2 || true
  status=1
elif [ "$status" != 0 ]; then
  echo "bench: queen-bench failed (exit $status); last broker log lines:" >&2
  tail -n 20 "$BROKER_LOG" >&2 || true
fi
exit "$status"
