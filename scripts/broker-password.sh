#!/usr/bin/env bash
# Sets the password of the login brokers connect as (docs/procedures.md, Roles), after a deploy: sqitch
# creates the role queen_broker without one, and a cluster that checks passwords refuses it until then.
#   scripts/broker-password.sh PASSWORD [ROLE]   (connection from the libpq variables PGHOST, PGPORT,
#                                                 PGUSER, PGDATABASE, PGPASSWORD: a superuser or CREATEROLE login)
set -euo pipefail
[ $# -ge 1 ] || { echo "usage: $0 PASSWORD [ROLE]" >&2; exit 2; }
# psql interpolates :'pw' and :"role" as a quoted literal and identifier: no quoting here.
printf '%s\n' "ALTER ROLE :\"role\" PASSWORD :'pw';" |
  psql -X -q -v ON_ERROR_STOP=1 -v pw="$1" -v role="${2:-queen_broker}" >/dev/null
