#!/usr/bin/env bash
# A webhook backlog drained against a receiver that answers at once. `signet serve` (SQLite,
# the signing and webhooks plugins) has one endpoint subscribed to every activity update; its
# receiver (webhook_receiver.mjs) holds the first delivery while wrk replays DELIVERIES unique
# pre-stamped sign_raw_payload requests, so that each activity's delivery queues behind it.
# Then the receiver answers, and the script times the drain until the pending gauge is 0.
# It prints the backlog, the drain's time and rate, what the receiver got, the gateway's
# resident memory (before the load, with the backlog queued, right after the drain and after
# 5 s idle) and the store's size. A benchmark: not in ctest; needs tests/conformance's npm
# packages (for the endpoint's creation through @turnkey/sdk-server).
#   tests/bench/webhook_backlog.sh [DELIVERIES]   (default 100000)
set -euo pipefail
cd "$(dirname "$0")/../.."
deliveries=${1:-100000}
command -v wrk >/dev/null || { [ "$(id -u)" = 0 ] && apt-get install -y -qq wrk >/dev/null; }
cmake --build build --target signet signet-plugin-signing signet-plugin-webhooks bench_requests >/dev/null
signet=build/gateway/signet
work=$(mktemp -d /tmp/signet-webhook-backlog.XXXXXX)
port=$((20000 + RANDOM % 20000))
pids=
cleanup() {
  for pid in $pids; do kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null; done
  rm -rf "$work"
}
trap cleanup EXIT

"$signet" init --data-dir "$work/data" --plugins signing,webhooks >/dev/null 2>&1
python3 - "$work/data/signet.json" "$deliveries" <<'PY'
import json, sys
path, deliveries = sys.argv[1], int(sys.argv[2])
config = json.load(open(path))
config["limits"]["rateLimit"] = {"perIpPerSecond": 0, "perOrganizationPerSecond": 0, "burst": 1}
# The first attempt is held while the backlog queues: its deadline must outlast that.
config["plugins"].setdefault("settings", {})["webhooks"] = {"allowInsecureUrls": True,
    "timeoutSeconds": 120, "maxBacklogPerEndpoint": deliveries + 1000}
json.dump(config, open(path, "w"), indent=2)
PY
"$signet" org create --data-dir "$work/data" --name bench --user-name bench \
  --base-url "http://127.0.0.1:$port" >/dev/null 2>&1
credentials=$(ls "$work"/data/*.api-key.json)
SIGNET_LOG_LEVEL=warning "$signet" serve --data-dir "$work/data" --listen "127.0.0.1:$port" \
  >"$work/serve.log" 2>&1 &
gateway=$!
pids="$gateway"
node tests/bench/webhook_receiver.mjs $((port + 1)) &
receiver=$!
pids="$pids $receiver"
for _ in $(seq 1 100); do
  curl -sf "http://127.0.0.1:$port/healthz" >/dev/null 2>&1 && curl -sf "http://127.0.0.1:$((port + 1))/" >/dev/null 2>&1 && break
  sleep 0.1
done
node tests/bench/webhook_endpoint.mjs "$credentials" "http://127.0.0.1:$((port + 1))/hook" >/dev/null

rss() { awk '/^VmRSS/ {printf "%.1f MiB", $2 / 1024}' "/proc/$gateway/status"; }
pending() {
  curl -s "http://127.0.0.1:$port/metrics" | awk '/^signet_webhooks_pending_deliveries / {print $2 + 0}'
}
build/tests/bench_requests "$credentials" sign_raw_payload "$deliveries" "$work/requests" >/dev/null
printf 'gateway resident before the load: %s\n' "$(rss)"
# One pass of wrk, long enough to send every line once at 1,000 a second (a replay of a line
# already sent makes no new activity; a second pass would start the file over).
wrk -t2 -c16 -d"$((deliveries / 1000 + 10))s" -s tests/bench/replay.lua "http://127.0.0.1:$port" \
  -- "$work/requests" 2 >/dev/null
sleep 1
queued=$(pending)
printf 'backlog queued: %s deliveries (the first one held by the receiver)\n' "$queued"
printf 'gateway resident with the backlog queued: %s; store %s\n' "$(rss)" "$(du -sh "$work/data" | cut -f1)"
start=$(date +%s.%N)
kill -USR1 "$receiver"
for _ in $(seq 1 7200); do  # an hour at most
  [ "$(pending)" = 0 ] && break
  sleep 0.5
done
end=$(date +%s.%N)
left=$(pending)
got=$(curl -s "http://127.0.0.1:$((port + 1))/")
awk -v s="$start" -v e="$end" -v n="$queued" -v left="$left" -v got="$got" 'BEGIN {
  printf "drained in %.1f s (%.0f deliveries/s); %s left pending; the receiver got %s\n", e - s, n / (e - s), left, got }'
printf 'gateway resident right after the drain: %s\n' "$(rss)"
sleep 5
printf 'gateway resident after 5 s idle: %s (peak %s); store %s\n' "$(rss)" \
  "$(awk '/^VmHWM/ {printf "%.1f MiB", $2 / 1024}' "/proc/$gateway/status")" "$(du -sh "$work/data" | cut -f1)"
