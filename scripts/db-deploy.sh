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
scripts/sql_program.py check >/dev/null || exit 1
if ! sqitch deploy --verify "db:pg://postgres@127.0.0.1:$PGPORT/$DB"; then
  # From v1.0.0 on, released changes are never edited (make test-tagged), so a failure here is the deploy's own
  # error above: never a reason to drop a database holding messages (docs/upgrading.md).
  echo "db-deploy: sqitch could not deploy to $DB; see its error above and docs/upgrading.md" >&2
  exit 1
fi
# The program change of the coming release is edited in place until that release: a database that deployed an
# earlier text of it gets the current one (its scripts are idempotent), where `sqitch deploy` sees nothing new.
deployed=$(psql -h 127.0.0.1 -p "$PGPORT" -U postgres -d "$DB" -tAc \
  "select script_hash from sqitch.changes where project = 'queen' and change = 'program' order by committed_at desc limit 1")
if [ -n "$deployed" ] && [ "$deployed" != "$(scripts/sql_program.py digest)" ]; then
  echo "db-deploy: the program of sql/queen and sql/queen_internal changed since $DB deployed it: applying it again"
  psql -h 127.0.0.1 -p "$PGPORT" -U postgres -d "$DB" -X -q -v ON_ERROR_STOP=1 -f migrations/deploy/program.sql
fi
if [ "${PG_USER:-queen_broker}" = queen_broker ]; then
  PGHOST=127.0.0.1 PGPORT=$PGPORT PGUSER=postgres PGDATABASE=$DB scripts/broker-password.sh "${PG_PASSWORD:-queen_broker}"
fi
