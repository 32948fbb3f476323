#!/usr/bin/env bash
# Proves the README's two commands on a bare Debian 12: builds a minimal Debian 12 root with
# debootstrap (--variant=minbase: no compiler, no Node, nothing of ours), copies this working
# tree into it, and there
#   1. runs `scripts/run.sh` as the README says, waits until the gateway listens, and
#   2. runs `scripts/test.sh` as the README says (every test, conformance included), then
#   3. asks the gateway of step 1 `whoami` through the official @turnkey/sdk-server, configured
#      with nothing but the credentials file that step 1 generated.
# It is not part of CI: it takes about half an hour on 2 cores. Run it before resolving
# anything that touches set-up, and quote its last lines.
#
#   scripts/fresh-debian.sh [WORK_DIR]      default /var/tmp/signet-fresh-debian; run as root
#
# The Debian mirror is the one this machine's apt uses (or SIGNET_DEBIAN_MIRROR). The root
# shares this machine's network, so the gateway of step 1 listens on 127.0.0.1:8080 here too;
# that port must be free. WORK_DIR/root is left for inspection and replaced by the next run.
set -euo pipefail
cd "$(dirname "$0")/.."
tree=$PWD
[ "$(id -u)" -eq 0 ] || { echo "fresh-debian.sh: run as root (debootstrap and chroot need it)" >&2; exit 2; }
work=${1:-/var/tmp/signet-fresh-debian}
root=$work/root
mkdir -p "$work"

say() { echo "== fresh-debian: $*"; }

# The mirror apt already uses: the first URI of the Debian suite in its sources (deb822 or
# one-line format), so that this script names no host of its own.
mirror=${SIGNET_DEBIAN_MIRROR:-}
if [ -z "$mirror" ]; then
  mirror=$(cat /etc/apt/sources.list.d/*.sources 2>/dev/null |
    awk '/^URIs:/ { for (i = 2; i <= NF; i++) if ($i !~ /security/) { print $i; exit } }')
fi
if [ -z "$mirror" ]; then
  mirror=$(grep -hE '^deb ' /etc/apt/sources.list 2>/dev/null | grep -v security |
    awk '{ print ($2 ~ /^\[/ ? $3 : $2); exit }')
fi
[ -n "$mirror" ] || { echo "fresh-debian.sh: no Debian mirror found in apt's sources; set SIGNET_DEBIAN_MIRROR" >&2; exit 2; }

if ss -ltn 2>/dev/null | awk '{ print $4 }' | grep -qE '(^|:)8080$'; then
  echo "fresh-debian.sh: 127.0.0.1:8080 is in use on this machine; scripts/run.sh needs it" >&2
  exit 2
fi

mounts=(proc sys dev)
unmount_all() {
  for m in "${mounts[@]}"; do
    if mountpoint -q "$root/$m"; then umount -R "$root/$m" || umount -lR "$root/$m"; fi
  done
}
server_pid=""
cleanup() {
  if [ -n "$server_pid" ] && kill -0 "$server_pid" 2>/dev/null; then
    kill -TERM "$server_pid" 2>/dev/null || true
    for _ in $(seq 1 30); do kill -0 "$server_pid" 2>/dev/null || break; sleep 1; done
  fi
  unmount_all
}
trap cleanup EXIT

# A root left by an earlier run: unmount first, so that removing it cannot reach the host's
# /dev or /proc, and refuse if anything is still mounted below it.
if [ -d "$root" ]; then
  unmount_all
  if grep -q " $root/" /proc/mounts; then
    echo "fresh-debian.sh: something is still mounted below $root; not removing it" >&2
    exit 1
  fi
  rm -rf "$root"
fi

command -v debootstrap >/dev/null 2>&1 || {
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq && apt-get install -y -qq --no-install-recommends debootstrap
}

say "debootstrap --variant=minbase bookworm from $mirror"
debootstrap --variant=minbase bookworm "$root" "$mirror" >"$work/debootstrap.log" 2>&1 ||
  { tail -n 20 "$work/debootstrap.log"; exit 1; }

say "copying the working tree (tracked files and untracked ones git does not ignore)"
mkdir -p "$root/src"
git -C "$tree" ls-files -z --cached --others --exclude-standard |
  (cd "$tree" && tar --null -T - -cf - 2>/dev/null) | tar -C "$root/src" -xf -

cp /etc/resolv.conf "$root/etc/resolv.conf"
mount -t proc proc "$root/proc"
mount --rbind /sys "$root/sys" && mount --make-rslave "$root/sys"
mount --rbind /dev "$root/dev" && mount --make-rslave "$root/dev"

# Where this machine reaches the registries through a TLS proxy, its own extra roots
# (/usr/local/share/ca-certificates) are what any machine on that network trusts: the root gets
# them too, for Node (npm) through NODE_EXTRA_CA_CERTS. Nothing else of the host's is copied.
extra_ca=()
if compgen -G "/usr/local/share/ca-certificates/*.crt" >/dev/null; then
  mkdir -p "$root/usr/local/share/ca-certificates"
  cp /usr/local/share/ca-certificates/*.crt "$root/usr/local/share/ca-certificates/"
  cat /usr/local/share/ca-certificates/*.crt >"$root/etc/site-extra-ca.pem"
  extra_ca=(NODE_EXTRA_CA_CERTS=/etc/site-extra-ca.pem)
fi

# A clean environment inside: nothing of this machine's PATH, npm or Node settings leaks in.
# An array, not a function, so that a command started in the background is the chroot process
# itself (which execs down to signet) and $! is the process to stop.
in_root=(chroot "$root" /usr/bin/env -i HOME=/root LANG=C.UTF-8 TERM=dumb "${extra_ca[@]}"
  PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin)

say "step 1: scripts/run.sh (log: $work/run.log)"
"${in_root[@]}" /bin/bash -c 'cd /src && exec scripts/run.sh' >"$work/run.log" 2>&1 &
server_pid=$!
# It installs, builds and then serves; bounded at 90 minutes.
for _ in $(seq 1 1080); do
  grep -q "listening on" "$work/run.log" && break
  kill -0 "$server_pid" 2>/dev/null || { tail -n 30 "$work/run.log"; echo "scripts/run.sh exited"; exit 1; }
  sleep 5
done
grep -q "listening on" "$work/run.log" || { tail -n 30 "$work/run.log"; echo "scripts/run.sh never listened"; exit 1; }
grep "listening on" "$work/run.log"

say "step 2: scripts/test.sh (log: $work/test.log)"
status=0
"${in_root[@]}" /bin/bash -c 'cd /src && scripts/test.sh' >"$work/test.log" 2>&1 || status=$?

say "step 3: whoami on the gateway of step 1 with its generated credentials file"
credentials=$(cd "$root/src/signet-data" && ls ./*.api-key.json | head -n 1)
whoami=0
"${in_root[@]}" /bin/bash -c "cd /src/tests/conformance && node whoami.mjs /src/signet-data/$credentials" \
  >"$work/whoami.log" 2>&1 || whoami=$?

echo
say "last lines of scripts/test.sh"
grep -E "^(# (tests|pass|fail|suites|cancelled|skipped)|[0-9]+% tests passed|Total Test time|== )" "$work/test.log" || true
tail -n 3 "$work/test.log"
say "whoami: $(cat "$work/whoami.log")"
if [ "$status" -ne 0 ] || [ "$whoami" -ne 0 ]; then
  say "FAILED (scripts/test.sh exit $status, whoami exit $whoami)"
  exit 1
fi
say "passed: both README commands work on a bare Debian 12"
