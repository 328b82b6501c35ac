#!/usr/bin/env bash
# Creates database $PG_DB (default queen) if missing, deploys the migrations with sqitch, and gives the
# broker's login (PG_USER, default queen_broker) the password PG_PASSWORD (default queen_broker) when it
# is the role queen_broker (another login is the DBA's to create: docs/procedures.md, Roles).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
PGPORT=${PGPORT:-55432}
DB=${PG_DB:-queen}
if ! psql -h 127.0.0.1 -p "$PGPORT" -U postgres -d postgres -tAc "select 1 from pg_database where datname='$DB'" | grep -q 1; then
  psql -h 127.0.0.1 -p "$PGPORT" -U postgres -d postgres -qc "create database \"$DB\""
fi
cd "$ROOT"
if ! sqitch deploy --verify "db:pg://postgres@127.0.0.1:$PGPORT/$DB"; then
  # From v1.0.0 on, released changes are never edited (make test-tagged), so a failure here is the deploy's own
  # error above: never a reason to drop a database holding messages (docs/upgrading.md).
  echo "db-deploy: sqitch could not deploy to $DB; see its error above and docs/upgrading.md" >&2
  exit 1
fi
if [ "${PG_USER:-queen_broker}" = queen_broker ]; then
  PGHOST=127.0.0.1 PGPORT=$PGPORT PGUSER=postgres PGDATABASE=$DB scripts/broker-password.sh "${PG_PASSWORD:-queen_broker}"
fi
