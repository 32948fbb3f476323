#!/usr/bin/env bash
# Starts or stops a throwaway PostgreSQL server for the tests, on a loopback port, owned by
# the postgres user (PostgreSQL refuses to run as root).
#   scripts/postgres.sh start DIR PORT   prints the libpq connection string (no dbname)
#   scripts/postgres.sh stop DIR
# Tests run it with fsync off (they need no durability, and it is faster); SIGNET_PG_FSYNC=on
# makes it durable, as the benchmark wants.
set -euo pipefail
action=$1 dir=$2
bin=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -n 1)
as_owner() {
  if [ "$(id -u)" -eq 0 ]; then su postgres -s /bin/sh -c "$*"; else sh -c "$*"; fi
}
case "$action" in
  start)
    port=$3
    mkdir -p "$dir"
    [ "$(id -u)" -eq 0 ] && chown postgres "$dir"
    as_owner "'$bin/initdb' -D '$dir/data' -A trust -U postgres >'$dir/initdb.log' 2>&1"
    as_owner "'$bin/pg_ctl' -D '$dir/data' -l '$dir/server.log' -w -t 60 \
      -o \"-p $port -k '$dir' -c listen_addresses=127.0.0.1 -c fsync=${SIGNET_PG_FSYNC:-off}\" start >/dev/null"
    echo "host=127.0.0.1 port=$port user=postgres"
    ;;
  stop)
    as_owner "'$bin/pg_ctl' -D '$dir/data' -m fast -w stop >/dev/null" || true
    ;;
  *) echo "usage: $0 start DIR PORT | stop DIR" >&2; exit 2 ;;
esac
