#!/usr/bin/env bash
# Builds each fuzz target with clang's libFuzzer, AddressSanitizer and UBSan and runs it for a
# bounded time (default 30 s each) from its seed corpus. New inputs go to a scratch folder,
# not the repository. Usage: tests/fuzz/run_libfuzzer.sh [SECONDS]
set -euo pipefail
cd "$(dirname "$0")/../.."
seconds=${1:-30}
out=$(mktemp -d /tmp/signet-fuzz.XXXXXX)
trap 'rm -rf "$out"' EXIT

# fuzz NAME CORPUS MAX_LEN SOURCES... -- LIBRARIES...
fuzz() {
  local name=$1 corpus=$2 maxlen=$3
  shift 3
  echo "-- $name"
  clang++-14 -std=c++20 -O1 -g -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
    -Igateway -Isdk/include -Iplugins/signing "$@" -o "$out/$name"
  mkdir -p "$out/$name-corpus" && cp "$corpus"/* "$out/$name-corpus/"
  local status=0
  "$out/$name" -max_total_time="$seconds" -max_len="$maxlen" -timeout=5 -print_final_stats=1 \
    -artifact_prefix="$out/" "$out/$name-corpus" >"$out/$name.log" 2>&1 || status=$?
  grep -E "DONE|stat::number_of_executed_units|stat::peak_rss_mb" "$out/$name.log" || true
  if [ "$status" -ne 0 ]; then
    # A finding: show what failed and the input that did it.
    grep -E "ERROR|SUMMARY|runtime error|#[0-9]+ .* in (signet|signing)" "$out/$name.log" | head -20
    for f in "$out"/crash-* "$out"/leak-* "$out"/timeout-*; do
      [ -e "$f" ] && { echo "input: $f"; xxd "$f" | head -20; }
    done
    exit "$status"
  fi
}

# The policy language: parser and evaluator.
fuzz policy_fuzz tests/fuzz/policy_corpus 512 \
  gateway/policy/shape.cpp gateway/policy/syntax.cpp gateway/policy/evaluator.cpp gateway/policy/value.cpp \
  gateway/policy/cron_span.cpp gateway/policy/time_zone.cpp \
  sdk/src/json.cpp sdk/src/error.cpp tests/fuzz/policy_fuzz.cpp \
  -lPocoJSON -lPocoFoundation

# The signing plugin's parsers of untrusted input (transactions, PSBTs, ABIs, IDLs).
signing=plugins/signing
fuzz signing_fuzz tests/fuzz/signing_corpus 4096 \
  $signing/abi.cpp $signing/addresses.cpp $signing/bitcoin_psbt.cpp $signing/bitcoin_sighash.cpp \
  $signing/eth_transaction.cpp $signing/protobuf.cpp $signing/rlp.cpp $signing/rlp_checks.cpp \
  $signing/solana_idl.cpp $signing/solana_transaction.cpp $signing/tempo_transaction.cpp \
  $signing/tron_transaction.cpp sdk/src/*.cpp tests/fuzz/signing_fuzz.cpp \
  -lPocoJSON -lPocoFoundation -lPocoNet -lcrypto -lsecp256k1
