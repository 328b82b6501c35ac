#!/usr/bin/env bash
# Creates database $PG_DB (default queen) if missing and deploys the migrations with sqitch.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
PGPORT=${PGPORT:-55432}
DB=${PG_DB:-queen}
if ! psql -h 127.0.0.1 -p "$PGPORT" -U postgres -d postgres -tAc "select 1 from pg_database where datname='$DB'" | grep -q 1; then
  psql -h 127.0.0.1 -p "$PGPORT" -U postgres -d postgres -qc "create database \"$DB\""
fi
cd "$ROOT"
sqitch deploy --verify "db:pg://postgres@127.0.0.1:$PGPORT/$DB"
