#!/usr/bin/env bash
# Runs every libFuzzer target of a SIGNET_SANITIZE build (scripts/sanitize.sh makes one) for a
# bounded time each, from its committed corpus, under AddressSanitizer and UBSan. New inputs go
# to a scratch folder, not the repository (scripts/fuzz.sh runs them for hours and keeps what
# they find). A finding fails the run and shows the input.
# Usage: tests/fuzz/run_libfuzzer.sh BUILD_DIR [SECONDS_EACH]
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${1:?usage: run_libfuzzer.sh BUILD_DIR [SECONDS_EACH]}
seconds=${2:-20}
out=$(mktemp -d /tmp/signet-fuzz.XXXXXX)
trap 'rm -rf "$out"' EXIT

while read -r name maxlen; do
  binary="$build/tests/${name}_fuzz"
  [ -x "$binary" ] || { echo "no $binary: build with -DSIGNET_SANITIZE=ON (scripts/sanitize.sh)"; exit 1; }
  echo "-- ${name}_fuzz (${seconds} s)"
  mkdir -p "$out/$name-corpus" && cp tests/fuzz/"$name"_corpus/* "$out/$name-corpus/"
  status=0
  "$binary" -max_total_time="$seconds" -max_len="$maxlen" -timeout=5 -print_final_stats=1 \
    -artifact_prefix="$out/$name-" "$out/$name-corpus" >"$out/$name.log" 2>&1 || status=$?
  grep -E "DONE|stat::number_of_executed_units|stat::peak_rss_mb" "$out/$name.log" || true
  if [ "$status" -ne 0 ]; then
    grep -E "ERROR|SUMMARY|runtime error|#[0-9]+ .* in " "$out/$name.log" | head -30
    for f in "$out/$name"-crash-* "$out/$name"-leak-* "$out/$name"-timeout-*; do
      [ -e "$f" ] && { echo "input: $f"; xxd "$f" | head -20; }
    done
    exit "$status"
  fi
done < <(grep -v '^#' tests/fuzz/targets.txt)
