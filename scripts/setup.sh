#!/usr/bin/env bash
# Installs what Signet needs on a fresh Debian 12 machine, from Debian's packages only.
# Safe to run again: apt skips what is installed. Run as root (or with sudo available).
set -euo pipefail

packages=(
  build-essential cmake ninja-build pkg-config clang-format
  libpoco-dev libsqlite3-dev libssl-dev libsecp256k1-dev libboost-dev libboost-filesystem-dev libcbor-dev
  libpq-dev libgtest-dev googletest
  libmimalloc-dev       # the signet binary's allocator
  libp11-kit-dev        # the PKCS#11 header (the master key in an HSM)
  clang-14 libclang-rt-14-dev   # libFuzzer for the policy fuzz target
  postgresql            # the PostgreSQL store tests start their own server from this
  python3-aiosmtpd openssl  # the OTP tests deliver mail to a real SMTP server on loopback
  tzdata                # IANA zone files: time-based policies (CronSpan) read them at run time
  softhsm2              # the master key in a PKCS#11 token: the HSM test uses SoftHSM
  chromium              # the auth proxy's browser test drives it headless with playwright-core
  systemd procps        # systemd-analyze checks the Debian package's unit, and its ExecReload's /bin/kill
  golang-go golang-golang-x-mod-dev  # the activity log's proofs checked by Go's sumdb note and tlog
)
# The conformance suite runs the official JavaScript SDKs; a machine without Node gets
# Debian's.
command -v node >/dev/null 2>&1 || packages+=(nodejs)
command -v npm >/dev/null 2>&1 || packages+=(npm)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
