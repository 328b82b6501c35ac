#!/usr/bin/env bash
# Checks the migrations on a scratch database: deploy --verify, verify, revert -y, deploy --verify.
# With --prove it then runs pgTAP (sql/tests) on that scratch database, so the tests always meet the
# procedures of this tree, never a development database deployed from an older edit of a change.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
PGPORT=${PGPORT:-55432}
# A scratch database of its own per PG_DB, so round trips of separate checkouts do not collide.
DB=${PG_DB:-queen}_sqitch_roundtrip
psql_admin() { PGOPTIONS="-c client_min_messages=warning" psql -h 127.0.0.1 -p "$PGPORT" -U postgres -d postgres -qc "$1"; }
psql_admin "drop database if exists $DB"
psql_admin "create database $DB"
trap 'psql_admin "drop database if exists $DB" || true' EXIT
cd "$ROOT"
TARGET="db:pg://postgres@127.0.0.1:$PGPORT/$DB"
sqitch deploy --verify "$TARGET" >/dev/null
sqitch verify "$TARGET" >/dev/null
sqitch revert -y "$TARGET" >/dev/null
left=$(psql -h 127.0.0.1 -p "$PGPORT" -U postgres -d "$DB" -tAc "select count(*) from pg_namespace where nspname = 'queen'")
[ "$left" = 0 ] || { echo "sqitch round trip: schema queen still exists after revert" >&2; exit 1; }
sqitch deploy --verify "$TARGET" >/dev/null
echo "sqitch round trip: deploy --verify, verify, revert -y, deploy --verify: ok"
if [ "${1:-}" = "--prove" ]; then
  pg_prove -h 127.0.0.1 -p "$PGPORT" -U postgres -d "$DB" --recurse --ext .sql sql/tests
fi
