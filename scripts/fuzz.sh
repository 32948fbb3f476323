#!/usr/bin/env bash
# Fuzzing for hours, outside CI: builds the libFuzzer targets under ASan and UBSan (into
# build-fuzz, the fuzz targets alone), runs each for HOURS (a decimal: 0.25 is 15 minutes) from
# its committed corpus, then merges what it found back into tests/fuzz/NAME_corpus, minimized:
# libFuzzer's -merge=1 keeps the fewest inputs that cover everything the old and new ones did.
# Commit the corpora it changed, so that every later run, CI's seconds included, starts where
# this one ended. A finding stops the run with the input, in build-fuzz/findings/.
# Usage: scripts/fuzz.sh HOURS [TARGET...]
set -euo pipefail
cd "$(dirname "$0")/.."
hours=${1:?usage: scripts/fuzz.sh HOURS [TARGET...]}
shift
seconds=$(awk -v h="$hours" 'BEGIN { s = int(h * 3600); if (s < 1) s = 1; print s }')
mapfile -t entries < <(grep -v '^#' tests/fuzz/targets.txt)
if [ $# -gt 0 ]; then
  wanted=" $* "
  mapfile -t entries < <(printf '%s\n' "${entries[@]}" | while read -r n m; do
    [[ "$wanted" == *" $n "* ]] && echo "$n $m"; done)
fi

CC=clang-14 CXX=clang++-14 cmake -S . -B build-fuzz -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DSIGNET_SANITIZE=ON >/dev/null
cmake --build build-fuzz --parallel "$(nproc)" \
  --target $(printf '%s\n' "${entries[@]}" | awk '{ print $1 "_fuzz" }')
export ASAN_OPTIONS="detect_leaks=1:abort_on_error=0:detect_stack_use_after_return=1"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
export LSAN_OPTIONS="suppressions=$PWD/tests/sanitize/lsan.supp:print_suppressions=0"

mkdir -p build-fuzz/findings
for entry in "${entries[@]}"; do
  read -r name maxlen <<<"$entry"
  binary=build-fuzz/tests/${name}_fuzz
  corpus=tests/fuzz/${name}_corpus
  grown=build-fuzz/grown/$name
  rm -rf "$grown" && mkdir -p "$grown"
  echo "== ${name}_fuzz: $seconds s from $(ls "$corpus" | wc -l) inputs"
  status=0
  "$binary" -max_total_time="$seconds" -max_len="$maxlen" -timeout=5 -print_final_stats=1 \
    -artifact_prefix="build-fuzz/findings/$name-" "$grown" "$corpus" \
    >"build-fuzz/$name.log" 2>&1 || status=$?
  grep -E "stat::number_of_executed_units|cov:" "build-fuzz/$name.log" | tail -2 || true
  if [ "$status" -ne 0 ]; then
    grep -E "ERROR|SUMMARY|runtime error" "build-fuzz/$name.log" | head -20
    ls build-fuzz/findings/"$name"-* 2>/dev/null
    exit "$status"
  fi
  # Minimize: the old corpus and what the run added, merged into the fewest inputs covering both.
  # Seeds named by hand (anything but a libFuzzer hash name) are kept as they are.
  merged=build-fuzz/merged/$name
  rm -rf "$merged" && mkdir -p "$merged"
  "$binary" -merge=1 -max_len="$maxlen" "$merged" "$corpus" "$grown" >"build-fuzz/$name.merge.log" 2>&1
  # libFuzzer names what it keeps by the SHA-1 of its content; a seed's own is skipped.
  find "$corpus" -type f -regextype egrep -regex '.*/[0-9a-f]{40}' -delete
  declare -A seeded=()
  for s in "$corpus"/*; do seeded[$(sha1sum <"$s" | cut -c1-40)]=1; done
  for f in "$merged"/*; do
    [ -n "${seeded[$(basename "$f")]:-}" ] || cp "$f" "$corpus/"
  done
  unset seeded
  echo "   corpus: $(ls "$corpus" | wc -l) inputs after merging"
done
git status --short tests/fuzz
