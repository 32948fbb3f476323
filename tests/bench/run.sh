#!/usr/bin/env bash
# Builds and runs the benchmarks, printing their figures. Assumes scripts/build.sh has run
# (scripts/test.sh runs this after the tests). Usage: tests/bench/run.sh [ROUNDS]
set -euo pipefail
cd "$(dirname "$0")/../.."
cmake --build build --target policy_bench >/dev/null
build/tests/policy_bench "${1:-15}"
