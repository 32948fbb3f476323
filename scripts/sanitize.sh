#!/usr/bin/env bash
# The whole ctest suite a second time, built with clang under AddressSanitizer and UBSan (a
# report fails the test that caused it), then every libFuzzer target for a bounded time.
# scripts/test.sh runs it after the main suite, with the same PostgreSQL server
# (SIGNET_TEST_PG). Usage: scripts/sanitize.sh [FUZZ_SECONDS_EACH]
set -euo pipefail
cd "$(dirname "$0")/.."
# Line tables only, not full debug info: a sanitizer's stack names file and line all the same, and
# the build (the longest stage of CI) compiles and links faster without the rest.
CC=clang-14 CXX=clang++-14 cmake -S . -B build-sanitize -G Ninja \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O2 -gline-tables-only -DNDEBUG" \
  -DCMAKE_C_FLAGS_RELWITHDEBINFO="-O2 -gline-tables-only -DNDEBUG" -DSIGNET_SANITIZE=ON >/dev/null
cmake --build build-sanitize --parallel "$(nproc)"
# Leaks are reported at exit; UBSan stops at its first finding with a stack.
export ASAN_OPTIONS="detect_leaks=1:abort_on_error=0:strict_string_checks=1:detect_stack_use_after_return=1"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
export LSAN_OPTIONS="suppressions=$PWD/tests/sanitize/lsan.supp:print_suppressions=0"
(cd build-sanitize && ctest --output-on-failure --timeout 600 -j "$(nproc)")
tests/fuzz/run_libfuzzer.sh build-sanitize "${1:-20}"
