#!/usr/bin/env bash
# What the activity log costs signing, in instructions: `signet serve` (the default install, every
# plugin, on SQLite) under valgrind's callgrind, driven by wrk with pre-stamped sign_raw_payload
# requests, once with the log and once without (SIGNET_BENCH_WITHOUT_ACTIVITY_LOG=1). callgrind
# counts the instructions the gateway's threads run, whatever else the machine does: two runs
# of one binary agreed within 0.1 % on the totals and 2 % on the log's part, where log_cost.sh's
# rates move by a fifth. Use it to see whether a change to the log's code saves work;
# log_cost.sh says what the rate does. The gateway's own work over the window (its workers'
# timers) is spread over the signatures: on a slower day, with fewer signatures in the window,
# the totals come out about 1 % higher. Compare the log's part, or runs that counted about as
# many signatures.
#   tests/bench/log_instructions.sh [SECONDS]
# What it cannot see: the kernel (the WAL's writes and their fsync, a third of the log's cost at
# 16 connections, docs/performance.md), time spent waiting, and how fast each instruction runs.
# valgrind does not offer the CPU's SHA extensions, so OpenSSL's SHA-256 is counted in its
# vector code, which is slower than the extensions: the script measures by how much with
# `openssl speed` on 256-byte inputs (with them, and with OPENSSL_ia32cap masking them) and
# prints the share also with SHA-256 weighed by that ratio, an approximation: the log hashes
# 65-byte nodes, leaves of about 470 bytes and texts of a kilobyte or so, and each call's setup
# gains nothing from the extensions. A benchmark: not in ctest.
# KEEP=1 keeps the profiles (callgrind's files, `with.out.*` and `without.out.*`) and says where,
# to read who spends what: `callgrind_annotate --tree=caller --inclusive=yes FILE`.
set -euo pipefail
cd "$(dirname "$0")/../.."
seconds=${1:-30}
for tool in valgrind wrk; do
  command -v "$tool" >/dev/null || { [ "$(id -u)" = 0 ] && apt-get install -y -qq "$tool" >/dev/null; }
done
cmake --build build >/dev/null
signet=${SIGNET:-build/gateway/signet}
work=$(mktemp -d /tmp/signet-log-instructions.XXXXXX)
server=
cleanup() {
  [ -n "$server" ] && kill "$server" 2>/dev/null && wait "$server" 2>/dev/null
  if [ "${KEEP:-0}" = 1 ]; then echo "profiles kept in $work" >&2; else rm -rf "$work"; fi
}
trap cleanup EXIT

# The number a metric of the gateway's /metrics has now, summed over its labels.
metric() {
  curl -s "http://127.0.0.1:$2/metrics" |
    awk -v name="$1" '$1 == name || index($1, name "{") == 1 {s += $2} END {print s + 0}'
}

# Waits until the gateway on port $1 has answered every activity sent to it: its count of them
# unchanged for a second (at most a minute). Its count of writes would not do: its background
# workers write on timers of their own.
settle() {
  local before after
  after=$(metric signet_activities_total "$1")
  for _ in $(seq 1 60); do
    before=$after
    sleep 1
    after=$(metric signet_activities_total "$1")
    [ "$after" = "$before" ] && return 0
  done
  echo "the gateway on port $1 was still answering a minute after its load stopped" >&2
  exit 1
}

# run NAME UNLOGGED: one gateway under callgrind; its profile of the signing window only.
run() {
  local data=$work/$1 port=$((20000 + RANDOM % 20000))
  "$signet" init --data-dir "$data" >/dev/null 2>&1
  python3 - "$data/signet.json" <<'PY'
import json, sys
config = json.load(open(sys.argv[1]))
config["limits"]["rateLimit"] = {"perIpPerSecond": 0, "perOrganizationPerSecond": 0, "burst": 1}
json.dump(config, open(sys.argv[1], "w"), indent=2)
PY
  "$signet" org create --data-dir "$data" --name bench --user-name bench \
    --base-url "http://127.0.0.1:$port" >/dev/null 2>&1
  SIGNET_LOG_LEVEL=warning SIGNET_BENCH_WITHOUT_ACTIVITY_LOG=$2 valgrind --tool=callgrind \
    --instr-atstart=no --callgrind-out-file="$work/$1.out" \
    "$signet" serve --data-dir "$data" --listen "127.0.0.1:$port" >"$work/$1.log" 2>&1 &
  server=$!
  for _ in $(seq 1 600); do
    curl -sf "http://127.0.0.1:$port/healthz" >/dev/null 2>&1 && break
    sleep 0.2
  done
  build/tests/bench_requests "$data"/*.api-key.json sign_raw_payload 30000 "$work/$1.requests"
  # A first pass, not counted: the caches, the statements prepared, the log's first pages.
  head -2000 "$work/$1.requests" >"$work/$1.warm"
  tail -n +2001 "$work/$1.requests" >"$work/$1.counted"
  wrk -t2 -c16 -d3s -s tests/bench/replay.lua "http://127.0.0.1:$port" -- "$work/$1.warm" 2 >/dev/null
  settle "$port"
  local signatures commits
  signatures=$(metric signet_activities_total "$port")
  commits=$(metric signet_store_commit_seconds_count "$port")
  callgrind_control -i on "$server" >/dev/null 2>&1
  wrk -t2 -c16 -d"${seconds}s" -s tests/bench/replay.lua "http://127.0.0.1:$port" -- \
    "$work/$1.counted" 2 >"$work/$1.wrk"
  # Counted as wrk stops, before the gateway idles: what an idle gateway does (its own writes,
  # its threads handing memory back) is not the signatures' cost. The few still in flight are
  # counted in part, alike with the log and without.
  callgrind_control -i off "$server" >/dev/null 2>&1
  echo "$(($(metric signet_activities_total "$port") - signatures))" \
    "$(($(metric signet_store_commit_seconds_count "$port") - commits))" >"$work/$1.counts"
  callgrind_control -d "$server" >/dev/null 2>&1
  kill "$server"
  wait "$server" 2>/dev/null || true
  server=
  grep -q "Non-2xx" "$work/$1.wrk" && { cat "$work/$1.wrk"; exit 1; }
  [ -s "$work/$1.out.1" ] || { echo "callgrind wrote no profile of the run $1 the log" >&2; exit 1; }
  # The window's dump: callgrind numbers each dump after the file's name (the file itself is
  # what it wrote at exit, nothing, its instrumentation being off).
  callgrind_annotate --inclusive=yes --auto=no --threshold=100 "$work/$1.out.1" \
    >"$work/$1.profile" 2>/dev/null
}

run with 0
run without 1

# SHA-256 on this CPU with its SHA extensions, and without them (CPUID leaf 7, EBX bit 29,
# masked for OpenSSL), in kB/s: what the profile's SHA-256 would cost with them.
speed() {
  openssl speed -seconds 2 -bytes 256 -evp sha256 2>/dev/null | awk '$1 == "sha256" {print $2}' |
    tr -d k
}
withExtensions=$(speed)
withoutExtensions=$(OPENSSL_ia32cap=":~0x20000000" speed)

python3 - "$work" "$withExtensions" "$withoutExtensions" <<'PY'
import re, sys
work = sys.argv[1]
shaRatio = float(sys.argv[3]) / float(sys.argv[2])
def load(name):
    costs = {}
    for line in open(f"{work}/{name}.profile"):
        m = re.match(r"\s*([\d,]+) \([ \d.]+%\)\s+(.*)$", line)
        if m:
            costs.setdefault(m.group(2), int(m.group(1).replace(",", "")))
    signatures, commits = map(int, open(f"{work}/{name}.counts").read().split())
    def cost(pattern, optional=False):  # the largest inclusive cost of a function that matches
        found = [v for k, v in costs.items() if re.search(pattern, k)]
        if not found and not optional:  # renamed or inlined: no figure rather than a false 0
            sys.exit(f"no function matches {pattern} in the profile of the run {name} the log")
        return max(found, default=0) / signatures
    return signatures, commits, cost
parts = [
    ("the gateway, all of it", r"PROGRAM TOTALS"),
    ("the writes, on the committing thread (the log's triggers among them)",
     r"GroupCommit::runWrite\("),
    ("the log's append (startAppend's part), before each COMMIT",
     r"_Function_handler<void \(signet::Db&\), signet::activity_log::startAppend"),
    ("the COMMIT", r"SqlConnection::commit\(\)"),
    ("SHA-256 (the triggers' sha256_hex, the leaves' and subtree hashes among it)",
     r"signet::crypto::sha256\(unsigned char const\*"),
]
figures = {name: load(name) for name in ("with", "without")}
for name, (signatures, commits, _) in figures.items():
    # The commits include the few the gateway makes of its own, about one a second.
    print(f"{name} the log: {signatures} signatures counted, {signatures / commits:.1f} a commit")
print(f"{'instructions a signature':72s} {'with':>10s} {'without':>10s} {'the log':>10s}")
deltas = []
for label, pattern in parts:
    # Without the log, its append does not run at all.
    a = figures["with"][2](pattern)
    b = figures["without"][2](pattern, optional="activity_log" in pattern)
    deltas.append(a - b)
    print(f"{label:72s} {a:10,.0f} {b:10,.0f} {a - b:+10,.0f}")
# The three parts on the committing thread do not add up to the whole: the rest of the gateway
# also differs a little between two runs (their batches, their scheduling).
print(f"{'the rest of the gateway (the whole less the three parts above it)':72s} "
      f"{'':10s} {'':10s} {deltas[0] - sum(deltas[1:4]):+10,.0f}")
def share(sha):  # the log's share of the instructions, SHA-256 counted `sha` times as many
    a, b = (figures[n][2](r"PROGRAM TOTALS") - (1 - sha) * figures[n][2](parts[-1][1])
            for n in ("with", "without"))
    return 100 * (a / b - 1)
print(f"the log adds {share(1):.1f} % to the gateway's instructions a signature; "
      f"{share(shaRatio):.1f} % with SHA-256 weighed as with this CPU's SHA extensions "
      f"(openssl speed: {float(sys.argv[2]) / 1e3:,.0f} MB/s with them, "
      f"{float(sys.argv[3]) / 1e3:,.0f} without)")
PY
