#!/usr/bin/env bash
# Deploys the migrations with sqitch into database PG_DB (default queen) and brings the program change up to this
# tree's text. Without DEPLOY_* variables it deploys the development cluster (127.0.0.1:$PGPORT, default 55432, as
# the superuser postgres), creates the database if missing, and gives the broker's login (PG_USER, default
# queen_broker) the password PG_PASSWORD (default queen_broker) when it is the role queen_broker (another login is
# the DBA's to create: docs/procedures.md, Roles).
#
# The DEPLOY_* variables point it at any other PostgreSQL, a managed one reached over TLS as a login that is not a
# superuser included (docs/deploy-managed-postgres.md). Every value is checked before anything connects, and a
# bad one stops the script (exit status 2) naming the variable:
#   DEPLOY_PG_HOST (127.0.0.1)  DEPLOY_PG_PORT ($PGPORT or 55432)  DEPLOY_PG_USER (postgres; its password from
#   PGPASSWORD or a password file)  DEPLOY_PG_SSLMODE (disable on this machine, verify-full elsewhere)
#   DEPLOY_PG_SSLROOTCERT (the server's CA certificate; needed by verify-ca and verify-full)
#   DEPLOY_CREATE_DATABASE (true)  DEPLOY_SET_BROKER_PASSWORD (true on this machine, false elsewhere)
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)

refuse() {
  echo "db-deploy: $*" >&2
  exit 2
}
boolean() {  # NAME VALUE: prints true or false, or refuses the value
  case "$2" in
    true | 1) echo true ;;
    false | 0) echo false ;;
    *) refuse "$1 must be true or false (or 1 or 0), got '$2'" ;;
  esac
}

DB=${PG_DB:-queen}
host=${DEPLOY_PG_HOST:-127.0.0.1}
port=${DEPLOY_PG_PORT:-${PGPORT:-55432}}
user=${DEPLOY_PG_USER:-postgres}
if ! [[ $port =~ ^[0-9]{1,5}$ ]] || ((10#$port < 1 || 10#$port > 65535)); then
  refuse "DEPLOY_PG_PORT must be a port number from 1 to 65535, got '$port'"
fi
# This machine: the loopback addresses and a Unix socket directory. Anything else is reached over a network.
case "$host" in
  127.0.0.1 | localhost | ::1 | /*) on_this_machine=true ;;
  *) on_this_machine=false ;;
esac

if $on_this_machine; then sslmode=${DEPLOY_PG_SSLMODE:-disable}; else sslmode=${DEPLOY_PG_SSLMODE:-verify-full}; fi
case "$sslmode" in
  disable)
    $on_this_machine || refuse "DEPLOY_PG_SSLMODE=disable would send the password and the schema to $host in clear:" \
      "use verify-full (or verify-ca, or require)"
    ;;
  require | verify-ca | verify-full) ;;
  # libpq's allow and prefer fall back to a connection without TLS when the server offers none: never chosen here.
  *) refuse "DEPLOY_PG_SSLMODE must be disable, require, verify-ca or verify-full, got '$sslmode'" ;;
esac
rootcert=${DEPLOY_PG_SSLROOTCERT:-}
if [ -n "$rootcert" ] && { [ ! -f "$rootcert" ] || [ ! -r "$rootcert" ]; }; then
  refuse "DEPLOY_PG_SSLROOTCERT names no readable file: '$rootcert'"
fi
if [[ $sslmode == verify-* && -z $rootcert ]]; then
  refuse "DEPLOY_PG_SSLMODE=$sslmode checks the server's certificate against a CA certificate:" \
    "set DEPLOY_PG_SSLROOTCERT to the file holding it (the provider publishes its CA bundle)"
fi

create_database=$(boolean DEPLOY_CREATE_DATABASE "${DEPLOY_CREATE_DATABASE:-true}")
set_broker_password=$(boolean DEPLOY_SET_BROKER_PASSWORD "${DEPLOY_SET_BROKER_PASSWORD:-$on_this_machine}")
broker_login=${PG_USER:-queen_broker}
broker_password=${PG_PASSWORD:-queen_broker}
if $set_broker_password && [ "$broker_login" = queen_broker ] && ! $on_this_machine &&
  [ "$broker_password" = queen_broker ]; then
  refuse "DEPLOY_SET_BROKER_PASSWORD=true would give queen_broker on $host the development password" \
    "'queen_broker': set PG_PASSWORD to the broker's password, or DEPLOY_SET_BROKER_PASSWORD=false"
fi

# Every connection below (psql, and sqitch through libpq) takes the server, the login and TLS from these.
export PGHOST=$host PGPORT=$port PGUSER=$user PGSSLMODE=$sslmode
[ -z "$rootcert" ] || export PGSSLROOTCERT=$rootcert
unset PGDATABASE PGSERVICE

cd "$ROOT"
scripts/sql_program.py check >/dev/null || exit 1

if $create_database; then
  exists=$(psql -X -d postgres -v ON_ERROR_STOP=1 -v db="$DB" -tA <<<"SELECT 1 FROM pg_database WHERE datname = :'db';")
  if [ "$exists" != 1 ]; then
    psql -X -q -d postgres -v ON_ERROR_STOP=1 -v db="$DB" <<<'CREATE DATABASE :"db";'
  fi
fi

# The target names only the database: the server, the login and TLS are libpq's variables above, so no host, login or
# path needs escaping into a URI. The database name is percent-encoded.
target="db:pg:///$(python3 -c 'import sys, urllib.parse; print(urllib.parse.quote(sys.argv[1], safe=""))' "$DB")"
echo "db-deploy: deploying $DB on $host:$port as $user (sslmode $sslmode)"
if ! sqitch deploy --verify "$target"; then
  # From v1.0.0 on, released changes are never edited (make test-tagged), so a failure here is the deploy's own
  # error above: never a reason to drop a database holding messages (docs/upgrading.md).
  echo "db-deploy: sqitch could not deploy to $DB; see its error above and docs/upgrading.md" >&2
  exit 1
fi
# The program change of the coming release is edited in place until that release: a database that deployed an
# earlier text of it gets the current one (its scripts are idempotent), where `sqitch deploy` sees nothing new.
deployed=$(psql -X -d "$DB" -v ON_ERROR_STOP=1 -tA <<<"SELECT script_hash FROM sqitch.changes
  WHERE project = 'queen' AND change = 'program' ORDER BY committed_at DESC LIMIT 1;")
if [ -n "$deployed" ] && [ "$deployed" != "$(scripts/sql_program.py digest)" ]; then
  echo "db-deploy: the program of sql/queen and sql/queen_internal changed since $DB deployed it: applying it again"
  psql -X -q -d "$DB" -v ON_ERROR_STOP=1 -f migrations/deploy/program.sql
fi
if $set_broker_password && [ "$broker_login" = queen_broker ]; then
  PGDATABASE=$DB scripts/broker-password.sh "$broker_password"
fi
