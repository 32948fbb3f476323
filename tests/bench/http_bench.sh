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
#   HALF_RATE=1           after each kind's run at saturation, a second run held to half of its
#                         rate (each connection pausing between requests) reports p50 and p99
#                         at that load, and the share of those requests that took over 5 and
#                         over 10 ms inside the gateway (its own histogram, from /metrics);
#                         for a kind that writes, the share of its writes over 5 ms from the
#                         group-commit queue to their commit, and of the two parts that can
#                         be that long alone: the wait in the queue and the COMMIT
#   WRITE_LANES=N         (postgresql) database.writeLanes of the gateways
#   THREADS=N             limits.threads, the gateway's request workers (default: sized for the
#                         machine, 16 here)
#   PLUGINS=a,b           the plugins enabled (default signing, which the kinds need);
#                         PLUGINS=default enables what `signet init` does: every plugin
#   WEBHOOK=slow          also enables the webhooks plugin with an endpoint, subscribed to
#                         every activity update, whose receiver answers each delivery after
#                         2 s (needs tests/conformance's npm packages): compare an activity
#                         kind's p99 with and without it
#   PERF=PREFIX           records a perf profile of the (first) gateway during each kind, to
#                         PREFIX.KIND (perf report -i PREFIX.KIND); PERF_CALLGRAPH sets
#                         perf's call-graph option (default -g; "--call-graph dwarf" sees
#                         through libc and OpenSSL, which have no frame pointers)
#   SIGNET=PATH           the gateway binary (default build/gateway/signet): copy one build
#                         aside and compare it with the next
#   GATEWAYS=N            (postgresql) N gateways on the one server, each driven by its own
#                         wrk with CONNECTIONS/N connections; the rate is their sum, p50 and
#                         p99 the worst of them
#   UNLOGGED=1            the gateways run without the activity log
#                         (SIGNET_BENCH_WITHOUT_ACTIVITY_LOG): what tests/bench/log_cost.sh
#                         compares with
# Before the kinds it measures the front end alone (GET /healthz); under each kind, the share
# a request that cost only that and its floor would reach, the ceiling its share is read against;
# under a kind that writes (on SQLite), the cost of the smallest durable write on this disk and
# the ceiling with it (tests/bench/store_floor.cpp).
# After each kind it prints what each request cost the gateway (CPU time, the kernel's share,
# context switches, the bytes it sent toward the disk, its minor page faults, and the share of
# that CPU its crypto floor is), how many writes shared a commit on average so far (from GET
# /metrics), on PostgreSQL what each request cost the server's processes, and it ends with the
# gateway's resident memory (VmRSS) after the run.
# Rate limits are turned off in the benchmark's own data directory: one client address and one
# organization send everything.
set -euo pipefail
cd "$(dirname "$0")/../.."
backend=${1:-sqlite}
seconds=${2:-10}
connections=${3:-16}
threads=2
command -v wrk >/dev/null || { [ "$(id -u)" = 0 ] && apt-get install -y -qq wrk >/dev/null; }
cmake --build build --target signet signet-plugin-signing bench_requests seed_store store_floor >/dev/null
signet=${SIGNET:-build/gateway/signet}
tools=build/tests/bench_requests
seed=build/tests/seed_store
storeFloor=build/tests/store_floor
work=$(mktemp -d /tmp/signet-http-bench.XXXXXX)
port=$((20000 + RANDOM % 20000))
cleanup() {
  for pid in ${servers:-}; do kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null; done
  [ "$backend" = postgresql ] && scripts/postgres.sh stop "$work/pg" >/dev/null 2>&1
  rm -rf "$work"
}
trap cleanup EXIT

plugins=${PLUGINS:-signing}
[ "${WEBHOOK:-}" = slow ] && plugins=$plugins,webhooks
if [ "$plugins" = default ]; then  # what `signet init` enables: every plugin found
  cmake --build build >/dev/null
  "$signet" init --data-dir "$work/data" >/dev/null 2>&1
else
  "$signet" init --data-dir "$work/data" --plugins "$plugins" >/dev/null 2>&1
fi
database='{"driver": "sqlite", "path": "signet.db"}'
if [ "$backend" = postgresql ]; then
  chmod 755 "$work"  # the server runs as the postgres user
  connection=$(SIGNET_PG_FSYNC=on scripts/postgres.sh start "$work/pg" $((port + 1)))
  database="{\"driver\": \"postgresql\", \"connection\": \"$connection dbname=postgres\"}"
fi
python3 - "$work/data/signet.json" "$database" <<'PY'
import json, os, sys
path, database = sys.argv[1], json.loads(sys.argv[2])
config = json.load(open(path))
config["database"] = database
if database["driver"] == "postgresql" and os.environ.get("WRITE_LANES"):
    config["database"]["writeLanes"] = int(os.environ["WRITE_LANES"])
config["limits"]["rateLimit"] = {"perIpPerSecond": 0, "perOrganizationPerSecond": 0, "burst": 1}
if os.environ.get("THREADS"):
    config["limits"]["threads"] = int(os.environ["THREADS"])
    # `signet init` writes egress.maxConcurrent, which must stay below the threads.
    egress = config["limits"].get("egress", {})
    if egress.get("maxConcurrent", 0) >= config["limits"]["threads"]:
        egress["maxConcurrent"] = max(1, config["limits"]["threads"] // 2)
if os.environ.get("WEBHOOK") == "slow":
    config["plugins"].setdefault("settings", {})["webhooks"] = {"allowInsecureUrls": True}
json.dump(config, open(path, "w"), indent=2)
PY
"$signet" org create --data-dir "$work/data" --name bench --user-name bench \
  --base-url "http://127.0.0.1:$port" >/dev/null 2>&1
credentials=$(ls "$work"/data/*.api-key.json)
gateways=${GATEWAYS:-1}
[ "$backend" = sqlite ] && gateways=1  # one file, one writer: SQLite's scaling is one gateway
servers=
ports=
for g in $(seq 1 "$gateways"); do
  p=$((port + 1 + g))
  [ "$g" = 1 ] && p=$port
  SIGNET_LOG_LEVEL=warning SIGNET_BENCH_WITHOUT_ACTIVITY_LOG=${UNLOGGED:-0} \
    "$signet" serve --data-dir "$work/data" --listen "127.0.0.1:$p" >"$work/serve-$g.log" 2>&1 &
  servers="$servers $!"
  ports="$ports $p"
  for _ in $(seq 1 100); do
    curl -sf "http://127.0.0.1:$p/healthz" >/dev/null 2>&1 && break
    sleep 0.1
  done
done

if [ "${WEBHOOK:-}" = slow ]; then
  # A receiver that takes 2 s to answer each delivery, on a thread per request.
  python3 -c '
import http.server, socketserver, sys, time
class Slow(http.server.BaseHTTPRequestHandler):
    def do_POST(self):
        self.rfile.read(int(self.headers.get("Content-Length", 0)))
        time.sleep(2)
        self.send_response(200); self.end_headers()
    def log_message(self, *a): pass
class Server(socketserver.ThreadingMixIn, http.server.HTTPServer): daemon_threads = True
Server(("127.0.0.1", int(sys.argv[1])), Slow).serve_forever()' $((port + 50)) &
  servers="$servers $!"
  sleep 0.5
  node tests/bench/webhook_endpoint.mjs "$credentials" "http://127.0.0.1:$((port + 50))/hook" >/dev/null
  printf 'webhooks: an endpoint for every activity update, its receiver answering after 2 s\n'
fi
# The first gateway's CPU ticks in user and kernel mode, its threads' context switches, the
# bytes it has sent toward the storage layer (write_bytes of /proc/PID/io: the pages it dirtied,
# WAL and checkpoints alike; proc(5); on PostgreSQL the server writes, and this stays near 0),
# and its minor page faults (memory touched afresh, kernel time the CPU figure includes).
process_cost() {
  local pid=${servers# }
  pid=${pid%% *}
  local ticks switches disk faults
  ticks=$(awk '{print $14, $15}' "/proc/$pid/stat")
  faults=$(awk '{print $10}' "/proc/$pid/stat")
  switches=$(cat /proc/"$pid"/task/*/status 2>/dev/null |
    awk '/ctxt_switches/ {s += $2} END {print s + 0}')
  disk=$(awk '/^write_bytes/ {print $2}' "/proc/$pid/io")
  echo "$ticks $switches ${disk:-0} $(server_ticks) $(machine_ticks) $faults"
}
# The whole machine's busy CPU ticks (every process and the kernel, wrk's included).
machine_ticks() {
  awk '/^cpu / {print $2 + $3 + $4 + $7 + $8 + $9}' /proc/stat
}
# On PostgreSQL, the CPU ticks of the server's processes (the postmaster and its children: the
# backends serving the gateways, the WAL writer, the checkpointer), which share the cores too.
server_ticks() {
  [ "$backend" = postgresql ] || { echo 0; return; }
  local master
  master=$(head -1 "$work/pg/data/postmaster.pid")
  for p in $master $(pgrep -P "$master"); do cat "/proc/$p/stat" 2>/dev/null; done |
    awk '{s += $14 + $15} END {print s + 0}'
}
cores=$(nproc)
# The first gateway's own histograms, as "series upper-bound cumulative-count" lines: its
# request times for KIND's route (from a complete request to its answer, without the client's
# side), and the store's: a write from the group-commit queue to its commit, its wait in the
# queue, and each COMMIT (docs/operations.md).
gatewayTimes() {
  curl -s "http://127.0.0.1:$port/metrics" |
    awk -v kind="$1" '
      /^signet_http_request_duration_seconds_bucket/ && index($0, "/" kind "\"") {s = "request"}
      /^signet_store_write_seconds_bucket/ {s = "write"}
      /^signet_store_write_queued_seconds_bucket/ {s = "queued"}
      /^signet_store_commit_seconds_bucket/ {s = "commit"}
      s {match($0, /le="[^"]*"/); print s, substr($0, RSTART + 4, RLENGTH - 5), $2; s = ""}'
}
printf '%s, %s gateway(s), %s s a kind, %s connections, %s wrk threads, %s cores\n' \
  "$backend" "$gateways" "$seconds" "$connections" "$threads" "$cores"
# The front end alone: GET /healthz reads no stamp and no store, so its rate is what one HTTP
# exchange costs this machine (wrk and the kernel's loopback included). A request that did
# nothing but that exchange and its cryptography would reach 1 / (1 + cores * perCore / this)
# of its floor: the ceiling printed under each kind.
frontBefore=$(process_cost)
frontOut=$(wrk -t"$threads" -c"$connections" -d"$((seconds < 5 ? seconds : 5))s" \
  "http://127.0.0.1:$port/healthz")
frontAfter=$(process_cost)
frontEnd=$(awk '/^Requests\/sec:/ {print $2}' <<<"$frontOut")
frontServed=$(awk '/requests in/ {print $1}' <<<"$frontOut")
# What that exchange cost the gateway process alone: the least any request costs it, so the
# crypto's share of the gateway's CPU can be no higher than crypto / (crypto + this).
read -r fu0 fs0 _ <<<"$frontBefore"
read -r fu1 fs1 _ <<<"$frontAfter"
frontGateway=$(python3 -c "print(f'{($fu1 - $fu0 + $fs1 - $fs0) * 1e6 / $(getconf CLK_TCK) / (${frontServed:-0} or 1):.1f}')")
printf 'front end alone (GET /healthz, no stamp, no store): %s req/s, %s us of the gateway'"'"'s CPU a request\n' \
  "$frontEnd" "$frontGateway"
printf '%-24s %10s %9s %9s %8s %12s %8s\n' kind 'req/s' p50 p99 non-2xx 'floor req/s' 'share'
seeded=
for kind in ${KINDS:-sign_raw_payload whoami get_activity create_wallet_accounts}; do
  for g in $(seq 1 "$gateways"); do
    "$tools" "$credentials" "$kind" 60000 "$work/$kind.$g.requests"
  done
  if [ -z "$seeded" ]; then  # once something exists to copy
    seeded=1
    [ "${SEED_ACTIVITIES:-0}" != 0 ] && "$seed" "$work/data" activities "$SEED_ACTIVITIES"
    [ -n "${SEED_TENANTS:-}" ] && "$seed" "$work/data" tenants "${SEED_TENANTS%%:*}" "${SEED_TENANTS##*:}"
  fi
  before=$(process_cost)
  g=0
  drivers=
  for p in $ports; do
    g=$((g + 1))
    wrk -t"$threads" -c"$((connections / gateways))" -d"${seconds}s" --latency \
      -s tests/bench/replay.lua "http://127.0.0.1:$p" -- "$work/$kind.$g.requests" "$threads" \
      >"$work/wrk-$g.out" &
    drivers="$drivers $!"
  done
  if [ -n "${PERF:-}" ]; then
    # A profile of the first gateway while wrk drives it: perf report -i "$PERF.$kind".
    perf record -q -e cpu-clock -F 999 ${PERF_CALLGRAPH:--g} -p "${servers# }" -o "$PERF.$kind" -- sleep "$seconds" \
      >/dev/null 2>&1 &
    drivers="$drivers $!"
  fi
  for pid in $drivers; do wait "$pid"; done
  after=$(process_cost)
  rate=$(cat "$work"/wrk-*.out | awk '/^Requests\/sec:/ {s += $2} END {printf "%.2f", s}')
  millis='{v = $2; if (v ~ /us$/) v = v / 1000; else if (v ~ /ms$/) v = v + 0; else v = v * 1000;'
  p50=$(cat "$work"/wrk-*.out | awk '$1 == "50%" '"$millis"' if (v > m) m = v} END {printf "%.2fms", m}')
  p99=$(cat "$work"/wrk-*.out | awk '$1 == "99%" '"$millis"' if (v > m) m = v} END {printf "%.2fms", m}')
  total=$(cat "$work"/wrk-*.out | awk '/requests in/ {s += $1} END {print s}')
  served=$(awk '/requests in/ {print $1}' "$work/wrk-1.out")  # by the first gateway alone
  bad=$(cat "$work"/wrk-*.out | awk '/Non-2xx or 3xx responses:/ {s += $5} END {print s + 0}')
  rm -f "$work"/wrk-*.out
  if [ -n "${HALF_RATE:-}" ]; then
    # Each connection pauses so that all of them together send at most half the rate just
    # measured; fresh requests, so that none is answered from an earlier identical one.
    pause=$(python3 -c "print(max(1, round($connections * 1000 / ($rate / 2))))")
    "$tools" "$credentials" "$kind" 60000 "$work/$kind.half.requests"
    inside0=$(gatewayTimes "$kind")
    half=$(wrk -t"$threads" -c"$connections" -d"${seconds}s" --latency -s tests/bench/replay.lua \
      "http://127.0.0.1:$port" -- "$work/$kind.half.requests" "$threads" "$pause")
    halfRate=$(awk '/^Requests\/sec:/ {print $2}' <<<"$half")
    halfP50=$(awk '$1 == "50%" {print $2}' <<<"$half")
    halfP99=$(awk '$1 == "99%" {print $2}' <<<"$half")
    inside=$(python3 - "$inside0" "$(gatewayTimes "$kind")" <<'PY'
import collections, sys
def parse(text):
    h = collections.defaultdict(dict)
    for line in text.splitlines():
        series, le, n = line.split()
        h[series][le] = float(n)
    return h
before, after = map(parse, sys.argv[1:3])
def over(series, le):  # the share of this run's observations above the bound
    d = {k: n - before[series].get(k, 0) for k, n in after[series].items()}
    total = d.get("+Inf", 0)
    return 100 * (total - d[le]) / total if total else 0.0
line = f"{over('request', '0.005'):.2f} % over 5 ms, {over('request', '0.01'):.2f} % over 10 ms"
if after["write"].get("+Inf", 0) > before["write"].get("+Inf", 0):  # the kind wrote
    line += (f"; writes over 5 ms {over('write', '0.005'):.2f} %, their waits in the queue "
             f"{over('queued', '0.005'):.2f} %, commits {over('commit', '0.005'):.2f} %")
print(line)
PY
)
  fi
  perCore=$("$tools" --floor "$kind" | cut -f1)
  floor=$(python3 -c "print(round($perCore * $cores))")
  share=$(python3 -c "print(f'{100 * $rate / $floor:.1f} %')")
  printf '%-24s %10s %9s %9s %8s %12s %8s\n' "$kind" "$rate" "$p50" "$p99" \
    "${bad:-0}/$total" "$floor" "$share"
  python3 -c "print(f'  ceiling, the front end plus this floor: {100 / (1 + $cores * $perCore / $frontEnd):.1f} %')"
  read -r u0 s0 c0 d0 p0 m0 f0 <<<"$before"
  read -r u1 s1 c1 d1 p1 m1 f1 <<<"$after"
  if [ "$backend" = sqlite ] && [ "$kind" != whoami ] && [ "$kind" != get_activity ]; then
    # The smallest durable write on this disk (tests/bench/store_floor.cpp): a row the size of
    # the request as it arrived (its stamp and body, the least an activity keeps), as many a
    # commit as there are connections (no commit can hold more), and the ceiling with it too.
    rowBytes=$(head -1 "$work/$kind.1.requests" | cut -f3- | wc -c)
    "$storeFloor" "$work" "$connections" "$rowBytes" 2 >"$work/store-floor.out"
    python3 - "$work/store-floor.out" "$cores" "$perCore" "$frontEnd" "$kind" \
      "$((m1 - m0))" "${total:-0}" "$(getconf CLK_TCK)" "$frontGateway" <<'PY'
import re, sys
text = open(sys.argv[1]).read()
cores, perCore, frontEnd = map(float, sys.argv[2:5])
# The whole machine's CPU a request over the kind's run, wrk and the kernel included.
busyTicks, requests, ticksPerSecond, frontGateway = map(float, sys.argv[6:10])
machine = busyTicks * 1e6 / ticksPerSecond / (requests or 1)
cpu, kernel = map(float, re.search(r"([0-9.]+) us CPU a row, ([0-9.]+) us", text).groups())
paced = re.search(r"paced.*commit p50 ([0-9.]+) ms, p99 ([0-9.]+) ms", text).groups()
crypto, front = 1e6 / perCore, cores * 1e6 / frontEnd  # core-microseconds a request
first = text.splitlines()[0].split(": ", 1)[1].split(",")[0]
print(f"  store floor ({first}): {cpu:.0f} us CPU a row, {kernel:.0f} us of it in the kernel; "
      f"commit p50 {paced[0]} ms, p99 {paced[1]} ms with the disk busy half the time")
print(f"  ceiling, the front end plus this floor plus the store floor: "
      f"{100 * crypto / (crypto + front + cpu):.1f} %")
# The same bound for the crypto's share of the gateway's own CPU: a request that cost the
# gateway only its HTTP exchange, its crypto and the store floor's row.
print(f"  crypto share ceiling, the gateway's HTTP exchange ({frontGateway:.0f} us), this crypto "
      f"and the store floor: {100 * crypto / (crypto + frontGateway + cpu):.0f} %")
# Signing's target, 50 % of the floor, allows a request twice its crypto in CPU time on these
# cores, wrk's and the kernel's included. What is left once the front end, the crypto and the
# store floor are paid, beside the two costs a fresh and group-committed answer cannot avoid.
if sys.argv[5] != "sign_raw_payload":
    sys.exit(0)
read_ = float(re.search(r"read transaction.*: ([0-9.]+) us", text).group(1))
handOff = float(re.search(r"hand-off.*: ([0-9.]+) us", text).group(1))
left = crypto - front - cpu
print(f"  at 50 % of the floor a request may cost {2 * crypto:.0f} us of CPU in all; the front "
      f"end, this floor and the store floor take {front + crypto + cpu:.0f}; left: {left:.0f} us "
      f"for all else, a read transaction ({read_:.0f} us) and a hand-off to the committing "
      f"thread ({handOff:.0f} us) among it")
print(f"  the machine per request: {machine:.0f} us CPU (wrk and the kernel included); beyond the "
      f"front end and this floor {machine - front - crypto:.0f} us, against the "
      f"{left:.0f} us the 50 % target leaves once the store floor is paid")
PY
  fi
  [ -n "${HALF_RATE:-}" ] && printf '  at half the rate: %s req/s, p50 %s, p99 %s; inside the gateway: %s\n' \
    "$halfRate" "$halfP50" "$halfP99" "$inside"
  # What each request cost the first gateway: less noisy than the rate on a shared machine, and
  # it says whether a change saved work or only moved it.
  python3 -c "
n = ${served:-0} or 1; tick = 1e6 / $(getconf CLK_TCK)
cpu = ($u1 - $u0 + $s1 - $s0) * tick / n; kernel = ($s1 - $s0) * tick / n
print(f'  gateway per request: {cpu:.0f} us CPU, {kernel:.0f} us of it in the kernel, '
      f'{($c1 - $c0) / n:.1f} context switches, {($d1 - $d0) / n / 1024:.1f} KiB toward the disk, '
      f'{($f1 - $f0) / n:.1f} minor page faults')
# The crypto's share of that CPU: the request's unavoidable cryptography on one core against
# all the gateway spent on it. It does not depend on wrk sharing the cores, as the rate does.
print(f'  crypto share of the gateway CPU: {100 * (1e6 / $perCore) / (cpu or 1):.0f} % '
      f'({1e6 / $perCore:.0f} us of crypto a request); its ceiling, the crypto plus the '
      f'gateway\'s CPU for GET /healthz ($frontGateway us): '
      f'{100 * (1e6 / $perCore) / (1e6 / $perCore + $frontGateway):.0f} %')
if '$backend' == 'postgresql':
    # All the gateways' requests, for all of them share the one server.
    server = ($p1 - $p0) * tick / ($total or 1)
    crypto, front = 1e6 / $perCore, $cores * 1e6 / $frontEnd
    print(f'  PostgreSQL per request: {server:.0f} us CPU (all its processes); ceiling, the front '
          f'end plus this floor plus that: {100 * crypto / (crypto + front + server):.1f} %')
    if '$kind' == 'sign_raw_payload':  # the issue's PostgreSQL target: 25 % of the floor
        left = 4 * crypto - crypto - front - server
        print(f'  at 25 % of the floor a request may cost {4 * crypto:.0f} us of CPU in all; the '
              f'front end, this floor and PostgreSQL take {crypto + front + server:.0f}; left for '
              f'the gateway beyond its crypto: {left:.0f} us, against the {cpu - crypto:.0f} it spent')"
  # How well writes shared a commit so far (the first gateway's running totals): a mean near
  # one means requests paid a disk sync each. The COMMIT's mean time: on SQLite, the WAL's
  # write of the batch's pages and its sync.
  curl -s "http://127.0.0.1:$port/metrics" | awk '
    /^signet_store_commit_batch_size_sum/ {s = $2} /^signet_store_commit_batch_size_count/ {n = $2}
    /^signet_store_commit_seconds_sum/ {cts = $2} /^signet_store_commit_seconds_count/ {ctn = $2}
    /^signet_sqlite_checkpoint_seconds_count\{where="commit"\}/ {ci = $2}
    /^signet_sqlite_checkpoint_seconds_sum\{where="commit"\}/ {cs = $2}
    /^signet_sqlite_checkpoint_seconds_count\{where="thread"\}/ {ti = $2}
    END {if (n) printf "  commits so far: %d, %.1f writes each, %.2f ms each COMMIT\n", n, s / n, ctn ? 1000 * cts / ctn : 0
         if (ci + ti) printf "  WAL checkpoints so far: %d on their thread, %d inside a commit (%.1f ms each)\n", ti, ci, ci ? 1000 * cs / ci : 0}'
done
for pid in $servers; do
  printf 'gateway resident memory after the run: %s\n' "$(awk '/^VmRSS/ {print $2, $3}' /proc/$pid/status)"
done
