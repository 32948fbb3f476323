#!/usr/bin/env bash
# Sets up a fresh machine and runs the whole test suite: unit and integration tests on
# SQLite and on a PostgreSQL server started here, then the conformance suite with the
# official SDKs from npm (versions pinned by tests/conformance/package-lock.json), then the
# unit and integration tests a second time under AddressSanitizer and UBSan, and the fuzz
# targets under libFuzzer.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
scripts/setup.sh
scripts/build.sh

pgdir=$(mktemp -d /tmp/signet-pg.XXXXXX)
port=$((20000 + RANDOM % 20000))
cleanup() { scripts/postgres.sh stop "$pgdir"; rm -rf "$pgdir"; }
trap cleanup EXIT
export SIGNET_TEST_PG=$(scripts/postgres.sh start "$pgdir" "$port")
export SIGNET_REQUIRE_POSTGRES=1

echo "== unit and integration tests (SQLite and PostgreSQL at 127.0.0.1:$port)"
(cd build && ctest --output-on-failure --timeout 300 -j "$(nproc)")

echo "== packages: signet and signet-dev (scripts/package.sh) unpacked into a scratch root; out of tree, sdk/examples/hello-plugin built against signet-dev alone, loaded into the packaged signet"
scripts/check-package.sh build

echo "== conformance: official @turnkey SDKs against a running signet, and sends to real chains"
# Hardhat's EVM and litesvm (the broadcast tests) need Node 20; Debian 12's own Node is 18. The
# npm registry carries Node's official Linux builds as packages, so an older Node gets one.
if [ "$(node -p 'process.versions.node.split(".")[0]')" -lt 20 ]; then
  arch=$(node -p 'process.arch')
  npm install --prefix "$root/build/node20" --no-audit --no-fund --loglevel=error "node-linux-$arch@20.20.2"
  export PATH="$root/build/node20/node_modules/node-linux-$arch/bin:$PATH"
fi
scripts/check-lockfile.sh
(cd tests/conformance && npm ci --no-audit --no-fund --loglevel=error)
SIGNET_BINARY="$root/build/gateway/signet" node --test tests/conformance/

echo "== sanitizers: the whole ctest suite again, built with clang under ASan and UBSan, then every fuzz target under libFuzzer (20 s each)"
scripts/sanitize.sh 20
