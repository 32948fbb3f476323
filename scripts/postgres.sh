#!/usr/bin/env bash
# Starts or stops a throwaway PostgreSQL server for the tests, on a loopback port, owned by
# the postgres user (PostgreSQL refuses to run as root).
#   scripts/postgres.sh start DIR PORT   prints the libpq connection string (no dbname)
#   scripts/postgres.sh stop DIR
# and, for the failover test (tests/gateway/store/failover_test.cpp), a synchronous standby of such a
# server, the loss of a server, and a promotion:
#   scripts/postgres.sh standby DIR PORT PRIMARY_PORT
#                                        copies the primary (pg_basebackup), starts the copy as
#                                        its standby, makes the primary wait for it at every
#                                        commit (synchronous_standby_names), and prints the
#                                        standby's connection string once it is in sync
#   scripts/postgres.sh crash DIR        SIGKILL to the server and every process of it, as a
#                                        lost machine: nothing is shut down or flushed
#   scripts/postgres.sh promote DIR      makes a standby the primary, and waits until it is
# Tests run it with fsync off (they need no durability, and it is faster); SIGNET_PG_FSYNC=on
# makes it durable, as the benchmark wants.
set -euo pipefail
action=$1 dir=${2:-}
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
  standby)
    port=$3 primary_port=$4
    mkdir -p "$dir"
    [ "$(id -u)" -eq 0 ] && chown postgres "$dir"
    # -R: the copy starts as a standby streaming from the primary. -c fast: a spread checkpoint
    # would pace its few writes over minutes.
    as_owner "'$bin/pg_basebackup' -h 127.0.0.1 -p $primary_port -U postgres -D '$dir/data' \
      -X stream -R -c fast >'$dir/basebackup.log' 2>&1"
    as_owner "'$bin/pg_ctl' -D '$dir/data' -l '$dir/server.log' -w -t 60 \
      -o \"-p $port -k '$dir' -c listen_addresses=127.0.0.1 -c fsync=${SIGNET_PG_FSYNC:-off}\" start >/dev/null"
    psql=("$bin/psql" -X -q -t -A -h 127.0.0.1 -p "$primary_port" -U postgres -d postgres)
    "${psql[@]}" -c "ALTER SYSTEM SET synchronous_standby_names = '*'" -c "SELECT pg_reload_conf()" >/dev/null
    for _ in $(seq 1 300); do
      [ "$("${psql[@]}" -c "SELECT count(*) FROM pg_stat_replication WHERE sync_state = 'sync'")" = 1 ] && break
      sleep 0.1
    done
    [ "$("${psql[@]}" -c "SELECT count(*) FROM pg_stat_replication WHERE sync_state = 'sync'")" = 1 ] ||
      { echo "postgres.sh: the standby in $dir never came in sync" >&2; exit 1; }
    echo "host=127.0.0.1 port=$port user=postgres"
    ;;
  crash)
    pid=$(head -n 1 "$dir/data/postmaster.pid")
    # The server's own processes, found by their parent; the postmaster first, so that it cannot
    # restart the others.
    mapfile -t children < <(cat /proc/[0-9]*/status 2>/dev/null |
      awk -v parent="$pid" '/^Pid:/ { id = $2 } /^PPid:/ && $2 == parent { print id }')
    kill -KILL "$pid" "${children[@]}" 2>/dev/null || true
    for _ in $(seq 1 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.05; done
    ;;
  promote)
    as_owner "'$bin/pg_ctl' -D '$dir/data' -w -t 60 promote >/dev/null"
    ;;
  *) echo "usage: $0 start DIR PORT | stop DIR | standby DIR PORT PRIMARY_PORT | crash DIR | promote DIR" >&2
    exit 2 ;;
esac
