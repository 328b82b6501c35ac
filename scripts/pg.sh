#!/usr/bin/env bash
# A project-local PostgreSQL 15 cluster on loopback.
#   scripts/pg.sh start|stop|status|psql   (PGDATA, PGPORT from the environment)
# initdb and postgres refuse to run as root, so as root they run as user postgres.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
PGBIN=${PGBIN:-/usr/lib/postgresql/15/bin}
PGDATA=${PGDATA:-$ROOT/.pgdata}
PGPORT=${PGPORT:-55432}
# Durable by default (fsync and synchronous_commit on); tests may pass PG_FAST=1.
EXTRA_OPTS=${PG_EXTRA_OPTS:-}
if [ "${PG_FAST:-0}" = 1 ]; then EXTRA_OPTS="$EXTRA_OPTS -c fsync=off -c synchronous_commit=off -c full_page_writes=off"; fi

as_pg() { if [ "$(id -u)" -eq 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }

case "${1:-start}" in
  start)
    if [ ! -s "$PGDATA/PG_VERSION" ]; then
      mkdir -p "$PGDATA"
      if [ "$(id -u)" -eq 0 ]; then
        chown postgres:postgres "$PGDATA"
        # every parent must be enterable by postgres
        d="$PGDATA"; while [ "$d" != "/" ]; do d=$(dirname "$d"); chmod o+x "$d" 2>/dev/null || true; done
      fi
      chmod 700 "$PGDATA"
      as_pg "$PGBIN/initdb" -D "$PGDATA" -U postgres -A trust -E UTF8 --locale=C.UTF-8 >/dev/null
      cat >>"$PGDATA/postgresql.conf" <<CONF
max_connections = 300
shared_buffers = 512MB
wal_buffers = 16MB
max_wal_size = 4GB
checkpoint_timeout = 15min
CONF
    fi
    if as_pg "$PGBIN/pg_ctl" -D "$PGDATA" status >/dev/null 2>&1; then
      echo "pg: already running on 127.0.0.1:$PGPORT ($PGDATA)"; exit 0
    fi
    as_pg "$PGBIN/pg_ctl" -D "$PGDATA" -l "$PGDATA/server.log" -w -t 60 \
      -o "-c listen_addresses=127.0.0.1 -c port=$PGPORT -c unix_socket_directories=$PGDATA $EXTRA_OPTS" start >/dev/null
    echo "pg: started on 127.0.0.1:$PGPORT ($PGDATA)"
    ;;
  stop)
    as_pg "$PGBIN/pg_ctl" -D "$PGDATA" -m "${PG_STOP_MODE:-fast}" -w stop >/dev/null 2>&1 || true
    ;;
  status)
    as_pg "$PGBIN/pg_ctl" -D "$PGDATA" status
    ;;
  *) echo "usage: $0 start|stop|status" >&2; exit 2 ;;
esac
