#!/usr/bin/env bash
# Builds and runs the benchmarks, printing their figures. Assumes scripts/build.sh has run;
# benchmarks are not part of scripts/test.sh. Usage: tests/bench/run.sh [POLICY_ROUNDS] [SIGN_REQUESTS_PER_THREAD]
set -euo pipefail
cd "$(dirname "$0")/../.."
cmake --build build --target policy_bench signing_bench abuse_bench >/dev/null
build/tests/policy_bench "${1:-15}"
echo
SIGNET_PLUGIN_DIR="${SIGNET_PLUGIN_DIR:-$PWD/build/gateway/plugins}" build/tests/signing_bench "${2:-300}"
echo
SIGNET_PLUGIN_DIR="${SIGNET_PLUGIN_DIR:-$PWD/build/gateway/plugins}" build/tests/abuse_bench
