#!/usr/bin/env bash
# Builds the policy fuzz target with clang's libFuzzer and AddressSanitizer and runs it for a
# bounded time (default 30 s) from the seed corpus. New inputs go to a scratch folder, not
# the repository. Usage: tests/fuzz/run_libfuzzer.sh [SECONDS]
set -euo pipefail
cd "$(dirname "$0")/../.."
seconds=${1:-30}
out=$(mktemp -d /tmp/signet-fuzz.XXXXXX)
trap 'rm -rf "$out"' EXIT
clang++-14 -std=c++20 -O1 -g -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
  -Igateway -Isdk/include \
  gateway/policy/shape.cpp gateway/policy/syntax.cpp gateway/policy/evaluator.cpp gateway/policy/value.cpp \
  gateway/policy/cron_span.cpp gateway/policy/time_zone.cpp \
  sdk/src/json.cpp sdk/src/error.cpp tests/fuzz/policy_fuzz.cpp \
  -lPocoJSON -lPocoFoundation -o "$out/policy_fuzz"
mkdir -p "$out/corpus" && cp tests/fuzz/policy_corpus/* "$out/corpus/"
status=0
"$out/policy_fuzz" -max_total_time="$seconds" -max_len=512 -timeout=5 -print_final_stats=1 \
  -artifact_prefix="$out/" "$out/corpus" >"$out/log" 2>&1 || status=$?
grep -E "DONE|stat::number_of_executed_units|stat::peak_rss_mb" "$out/log" || true
if [ "$status" -ne 0 ]; then
  # A finding: show what failed and the input that did it.
  grep -E "ERROR|SUMMARY|runtime error|#[0-9]+ .* in signet" "$out/log" | head -20
  for f in "$out"/crash-* "$out"/leak-* "$out"/timeout-*; do [ -e "$f" ] && { echo "input: $f"; head -c 600 "$f"; echo; }; done
  exit "$status"
fi
