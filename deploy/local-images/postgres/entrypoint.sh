#!/bin/sh
# Makes the cluster on first start (POSTGRES_USER, POSTGRES_PASSWORD, POSTGRES_DB), then runs the command as postgres.
# As in the official image, only when the command is `postgres`: any other command (pg_autoctl in
# docker-compose.cluster.yml, which makes its own clusters) runs as given, untouched.
set -eu
if [ "${1:-}" != postgres ]; then
  exec "$@"
fi
if [ "$(id -u)" = 0 ]; then
  mkdir -p "$PGDATA" /run/postgresql
  chown -R postgres:postgres "$PGDATA" /run/postgresql
  chmod 700 "$PGDATA"
  exec runuser -u postgres -- "$0" "$@"
fi
user=${POSTGRES_USER:-postgres}
db=${POSTGRES_DB:-$user}
if [ ! -s "$PGDATA/PG_VERSION" ]; then
  [ -n "${POSTGRES_PASSWORD:-}" ] || { echo 'postgres-entrypoint: set POSTGRES_PASSWORD' >&2; exit 1; }
  pwfile=$(mktemp)
  printf '%s\n' "$POSTGRES_PASSWORD" > "$pwfile"
  initdb -D "$PGDATA" -U "$user" --pwfile="$pwfile" --auth-local=trust --auth-host=scram-sha-256 >/dev/null
  rm -f "$pwfile"
  echo 'host all all all scram-sha-256' >> "$PGDATA/pg_hba.conf"
  if [ "$db" != postgres ]; then
    pg_ctl -D "$PGDATA" -o "-c listen_addresses=''" -w start >/dev/null
    createdb -U "$user" "$db"
    pg_ctl -D "$PGDATA" -m fast -w stop >/dev/null
  fi
  echo "postgres-entrypoint: cluster made, database \`$db\` for user \`$user\`"
fi
shift
exec postgres -D "$PGDATA" -c listen_addresses='*' "$@"
