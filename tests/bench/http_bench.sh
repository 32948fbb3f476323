#!/usr/bin/env bash
# Over-the-wire benchmark: `signet serve` on loopback, driven by wrk (Debian's) replaying
# unique pre-stamped requests, for sign_raw_payload, whoami, get_activity and
# create_wallet_accounts. For each it prints requests/s, p50, p99, the share of non-2xx
# answers, and the ratio to that request's crypto floor measured in the same run (the
# per-core rate of its unavoidable cryptography times the cores). A benchmark: not in ctest.
#   tests/bench/http_bench.sh [sqlite|postgresql] [SECONDS] [CONNECTIONS]
# Environment:
#   SEED_ACTIVITIES=N     first grows the store by N activities (tests/bench/seed_store.cpp)
#   SEED_TENANTS=O:A      first adds O organizations holding A wallet accounts in all
#   KINDS="k1 k2"         runs only these kinds
# It ends with the gateway's resident memory (VmRSS) after the run.
# Rate limits are turned off in the benchmark's own data directory: one client address and one
# organization send everything.
set -euo pipefail
cd "$(dirname "$0")/../.."
backend=${1:-sqlite}
seconds=${2:-10}
connections=${3:-16}
threads=2
command -v wrk >/dev/null || { [ "$(id -u)" = 0 ] && apt-get install -y -qq wrk >/dev/null; }
cmake --build build --target signet signet-plugin-signing bench_requests seed_store >/dev/null
signet=build/gateway/signet
tools=build/tests/bench_requests
seed=build/tests/seed_store
work=$(mktemp -d /tmp/signet-http-bench.XXXXXX)
port=$((20000 + RANDOM % 20000))
cleanup() {
  [ -n "${server:-}" ] && kill "$server" 2>/dev/null && wait "$server" 2>/dev/null
  [ "$backend" = postgresql ] && scripts/postgres.sh stop "$work/pg" >/dev/null 2>&1
  rm -rf "$work"
}
trap cleanup EXIT

"$signet" init --data-dir "$work/data" --plugins signing >/dev/null 2>&1
database='{"driver": "sqlite", "path": "signet.db"}'
if [ "$backend" = postgresql ]; then
  chmod 755 "$work"  # the server runs as the postgres user
  connection=$(SIGNET_PG_FSYNC=on scripts/postgres.sh start "$work/pg" $((port + 1)))
  database="{\"driver\": \"postgresql\", \"connection\": \"$connection dbname=postgres\"}"
fi
python3 - "$work/data/signet.json" "$database" <<'PY'
import json, sys
path, database = sys.argv[1], json.loads(sys.argv[2])
config = json.load(open(path))
config["database"] = database
config["limits"]["rateLimit"] = {"perIpPerSecond": 0, "perOrganizationPerSecond": 0, "burst": 1}
json.dump(config, open(path, "w"), indent=2)
PY
"$signet" org create --data-dir "$work/data" --name bench --user-name bench \
  --base-url "http://127.0.0.1:$port" >/dev/null 2>&1
credentials=$(ls "$work"/data/*.api-key.json)
SIGNET_LOG_LEVEL=warning "$signet" serve --data-dir "$work/data" --listen "127.0.0.1:$port" \
  >"$work/serve.log" 2>&1 &
server=$!
for _ in $(seq 1 100); do
  curl -sf "http://127.0.0.1:$port/healthz" >/dev/null 2>&1 && break
  sleep 0.1
done

cores=$(nproc)
printf '%s, %s s a kind, %s connections, %s wrk threads, %s cores\n' \
  "$backend" "$seconds" "$connections" "$threads" "$cores"
printf '%-24s %10s %9s %9s %8s %12s %8s\n' kind 'req/s' p50 p99 non-2xx 'floor req/s' 'share'
seeded=
for kind in ${KINDS:-sign_raw_payload whoami get_activity create_wallet_accounts}; do
  "$tools" "$credentials" "$kind" 60000 "$work/$kind.requests"
  if [ -z "$seeded" ]; then  # once something exists to copy
    seeded=1
    [ "${SEED_ACTIVITIES:-0}" != 0 ] && "$seed" "$work/data" activities "$SEED_ACTIVITIES"
    [ -n "${SEED_TENANTS:-}" ] && "$seed" "$work/data" tenants "${SEED_TENANTS%%:*}" "${SEED_TENANTS##*:}"
  fi
  out=$(wrk -t"$threads" -c"$connections" -d"${seconds}s" --latency -s tests/bench/replay.lua \
    "http://127.0.0.1:$port" -- "$work/$kind.requests" "$threads")
  rate=$(awk '/^Requests\/sec:/ {print $2}' <<<"$out")
  p50=$(awk '$1 == "50%" {print $2}' <<<"$out")
  p99=$(awk '$1 == "99%" {print $2}' <<<"$out")
  total=$(awk '/requests in/ {print $1}' <<<"$out")
  bad=$(awk '/Non-2xx or 3xx responses:/ {print $5}' <<<"$out")
  perCore=$("$tools" --floor "$kind" | cut -f1)
  floor=$(python3 -c "print(round($perCore * $cores))")
  share=$(python3 -c "print(f'{100 * $rate / $floor:.1f} %')")
  printf '%-24s %10s %9s %9s %8s %12s %8s\n' "$kind" "$rate" "$p50" "$p99" \
    "${bad:-0}/$total" "$floor" "$share"
done
printf 'gateway resident memory after the run: %s\n' "$(awk '/^VmRSS/ {print $2, $3}' /proc/$server/status)"
