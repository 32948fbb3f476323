#!/usr/bin/env bash
# Sets up a fresh machine and runs the whole test suite: unit and integration tests on
# SQLite and on a PostgreSQL server started here, then the conformance suite with the
# official SDKs from npm (versions pinned by tests/conformance/package-lock.json) on SQLite
# and again on PostgreSQL, then the unit and integration tests a second time under
# AddressSanitizer and UBSan, and the fuzz targets under libFuzzer. Each stage's time is
# printed when it ends, and all of them at the end (CI must stay under 60 minutes on 2 cores).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD

stages=()
stage_name="" stage_start=0 run_start=$SECONDS
# stage NAME: ends the stage running (printing its time) and starts NAME; `stage` alone ends it.
stage() {
  if [ -n "$stage_name" ]; then
    local took=$((SECONDS - stage_start))
    stages+=("$(printf '%5d s  %s' "$took" "$stage_name")")
    echo "== ${stage_name}: ${took} s"
  fi
  stage_name=${1:-} stage_start=$SECONDS
  [ -z "$stage_name" ] || echo "== $stage_name"
}
summary() {
  stage
  echo "== stage times"
  printf '%s\n' "${stages[@]}"
  echo "$(printf '%5d s' $((SECONDS - run_start)))  in all"
}

stage "set-up: Debian packages"
scripts/setup.sh
stage "build"
scripts/build.sh

stage "Node 20 and the conformance suite's npm packages"
# Hardhat's EVM and litesvm (the broadcast tests, and the Solana gateway tests of ctest, which
# run tests/conformance/solana_rpc.mjs) need Node 20; Debian 12's own Node is 18. The npm
# registry carries Node's official Linux builds as packages, so an older Node gets one.
if [ "$(node -p 'process.versions.node.split(".")[0]')" -lt 20 ]; then
  arch=$(node -p 'process.arch')
  npm install --prefix "$root/build/node20" --no-audit --no-fund --loglevel=error "node-linux-$arch@20.20.2"
  export PATH="$root/build/node20/node_modules/node-linux-$arch/bin:$PATH"
fi
scripts/check-lockfile.sh
(cd tests/conformance && npm ci --no-audit --no-fund --loglevel=error)
# The chain tests of ctest fail, rather than skip, without Node 20 and litesvm.
export SIGNET_REQUIRE_CHAINS=1

pgdir=$(mktemp -d /tmp/signet-pg.XXXXXX)
port=$((20000 + RANDOM % 20000))
cleanup() { scripts/postgres.sh stop "$pgdir"; rm -rf "$pgdir"; }
trap cleanup EXIT
# Assigned on its own line: `export X=$(...)` would hide a failed start from `set -e`.
SIGNET_TEST_PG=$(scripts/postgres.sh start "$pgdir" "$port")
export SIGNET_TEST_PG
export SIGNET_REQUIRE_POSTGRES=1

stage "unit and integration tests (SQLite and PostgreSQL at 127.0.0.1:$port)"
(cd build && ctest --output-on-failure --timeout 300 -j "$(nproc)")

stage "packages: signet and signet-dev (scripts/package.sh) unpacked into a scratch root; out of tree, sdk/examples/hello-plugin built against signet-dev alone, loaded into the packaged signet"
scripts/check-package.sh build

stage "conformance on SQLite: official @turnkey SDKs against a running signet, and sends to real chains"
SIGNET_BINARY="$root/build/gateway/signet" node --test tests/conformance/

# Every plugin's conformance tests again with each gateway on a PostgreSQL database of its own
# (harness.mjs creates it when SIGNET_CONFORMANCE_PG names a server); browser.test.mjs is the
# auth proxy's; compatibility.test.mjs sends a well-formed request to every implemented
# operation. Left out: the console and TLS tests (the store plays no part in what they add: a
# page, a listener). The memo plugin has no conformance test; its own tests run on both stores
# under ctest.
stage "conformance on PostgreSQL: every plugin's tests with the gateways on PostgreSQL"
(cd tests/conformance && SIGNET_BINARY="$root/build/gateway/signet" SIGNET_CONFORMANCE_PG="$SIGNET_TEST_PG" \
  node --test core.test.mjs tenancy.test.mjs credentials.test.mjs policies.test.mjs mfa.test.mjs \
    sessions.test.mjs oauth.test.mjs signing.test.mjs spark.test.mjs broadcast.test.mjs balances.test.mjs \
    webhooks.test.mjs onramp.test.mjs deployment.test.mjs browser.test.mjs compatibility.test.mjs)

stage "sanitizers: the whole ctest suite again, built with clang under ASan and UBSan, then every fuzz target under libFuzzer (10 s each, from the committed corpora)"
scripts/sanitize.sh 10
summary
