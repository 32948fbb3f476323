#!/usr/bin/env bash
# Proves the README's two commands on a bare Debian 12: builds a minimal Debian 12 root with
# debootstrap (--variant=minbase: no compiler, no Node, nothing of ours), copies this working
# tree into it, and there
#   1. runs `scripts/run.sh` as the README says, waits until the gateway listens, and
#   2. runs `scripts/test.sh` as the README says (every test, conformance included), then
#   3. asks the gateway of step 1 `whoami` through the official @turnkey/sdk-server, configured
#      with nothing but the credentials file that step 1 generated, then stops that gateway;
#   4. builds the Debian packages there (scripts/package.sh), and
#   5. installs the runtime package with apt on a second bare root (so that apt must pull in
#      every library it needs), runs the unit's ExecStartPre and ExecStart as the unit's user,
#      asks /healthz, stops it, and purges the package: the data directory must stay (and go
#      with SIGNET_PURGE_DATA=yes).
# It is not part of CI: it takes about forty minutes on 2 cores. Run it before resolving
# anything that touches set-up or packaging, and quote its last lines.
#
#   scripts/fresh-debian.sh [WORK_DIR]      default /var/tmp/signet-fresh-debian; run as root
#
# The Debian mirror is the one this machine's apt uses (or SIGNET_DEBIAN_MIRROR). The root
# shares this machine's network, so the gateway of step 1 listens on 127.0.0.1:8080 here too;
# that port must be free. WORK_DIR/root and WORK_DIR/bare are left for inspection and replaced
# by the next run.
set -euo pipefail
cd "$(dirname "$0")/.."
tree=$PWD
[ "$(id -u)" -eq 0 ] || { echo "fresh-debian.sh: run as root (debootstrap and chroot need it)" >&2; exit 2; }
work=${1:-/var/tmp/signet-fresh-debian}
root=$work/root
bare=$work/bare
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
  for r in "$root" "$bare"; do
    for m in "${mounts[@]}"; do
      if mountpoint -q "$r/$m"; then umount -R "$r/$m" || umount -lR "$r/$m"; fi
    done
  done
}
mount_all() {
  mount -t proc proc "$1/proc"
  mount --rbind /sys "$1/sys" && mount --make-rslave "$1/sys"
  mount --rbind /dev "$1/dev" && mount --make-rslave "$1/dev"
}
stop_server() {
  if [ -n "$server_pid" ] && kill -0 "$server_pid" 2>/dev/null; then
    kill -TERM "$server_pid" 2>/dev/null || true
    for _ in $(seq 1 30); do kill -0 "$server_pid" 2>/dev/null || break; sleep 1; done
  fi
}
server_pid=""
cleanup() {
  stop_server
  unmount_all
}
trap cleanup EXIT

# Roots left by an earlier run: unmount first, so that removing them cannot reach the host's
# /dev or /proc, and refuse if anything is still mounted below one.
unmount_all
for r in "$root" "$bare"; do
  [ -d "$r" ] || continue
  if grep -q " $r/" /proc/mounts; then
    echo "fresh-debian.sh: something is still mounted below $r; not removing it" >&2
    exit 1
  fi
  rm -rf "$r"
done

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
mount_all "$root"

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
clean_env=(/usr/bin/env -i HOME=/root LANG=C.UTF-8 TERM=dumb
  PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin)
in_root=(chroot "$root" "${clean_env[@]}" "${extra_ca[@]}")
in_bare=(chroot "$bare" "${clean_env[@]}")

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
stop_server  # 127.0.0.1:8080 is the packaged configuration's too

say "step 4: scripts/package.sh (log: $work/package.log)"
package=0
"${in_root[@]}" /bin/bash -c 'cd /src && scripts/package.sh build /src/packages' \
  >"$work/package.log" 2>&1 || package=$?
deb=$(ls "$root"/src/packages/signet_*.deb 2>/dev/null | head -n 1)

say "step 5: the package installed with apt on a second bare root (log: $work/install.log)"
install=1
if [ "$package" -eq 0 ] && [ -n "$deb" ]; then
  debootstrap --variant=minbase bookworm "$bare" "$mirror" >"$work/debootstrap-bare.log" 2>&1 ||
    { tail -n 20 "$work/debootstrap-bare.log"; exit 1; }
  cp /etc/resolv.conf "$bare/etc/resolv.conf"
  cp "$deb" "$bare/root/"
  mount_all "$bare"
  install=0
  # Run inside the bare root: what an operator types, and what systemd would run for the unit
  # (its ExecStartPre and ExecStart lines, read from the installed unit, as its User= with its
  # UMask=; setpriv execs, so that $! is the gateway itself), then /healthz over bash's
  # /dev/tcp (the root has no curl).
  "${in_bare[@]}" /bin/bash -euo pipefail -c '
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq --no-install-recommends ./root/'"$(basename "$deb")"' >/dev/null
    echo "installed: $(signet --version)"
    getent passwd signet
    stat -c "%n %a %U:%G" /var/lib/signet /etc/signet/signet.json /usr/bin/signet
    [ "$(stat -c %a%U /var/lib/signet)" = 700signet ]
    unit=/lib/systemd/system/signet.service
    [ "$(sed -n "s/^User=//p" $unit)" = signet ]
    pre=$(sed -n "s/^ExecStartPre=//p" $unit)
    start=$(sed -n "s/^ExecStart=//p" $unit)
    echo "ExecStartPre: $pre"
    as_signet=(setpriv --reuid=signet --regid=signet --init-groups --)
    (umask 077; "${as_signet[@]}" $pre)
    (umask 077; "${as_signet[@]}" $pre) | grep "nothing done"
    echo "ExecStart: $start"
    (umask 077; exec "${as_signet[@]}" $start) >/tmp/serve.log 2>&1 &
    gateway=$!
    # However this ends, the gateway does not outlive it (it would hold the root'"'"'s mounts).
    trap '"'"'kill -TERM "$gateway" 2>/dev/null || true'"'"' EXIT
    for _ in $(seq 1 300); do grep -q "listening on" /tmp/serve.log && break; sleep 0.2; done
    grep "listening on" /tmp/serve.log
    exec 3<>/dev/tcp/127.0.0.1/8080
    printf "GET /healthz HTTP/1.0\r\nHost: localhost\r\n\r\n" >&3
    answer=$(cat <&3)
    echo "healthz: $(head -n 1 <<<"$answer") $(tail -n 1 <<<"$answer")"
    grep -q "^HTTP/1.[01] 200" <<<"$answer"
    kill -TERM "$gateway"
    wait "$gateway"
    echo "stopped on SIGTERM: exit 0"
    ls -l /var/lib/signet
    apt-get purge -y -qq signet >/dev/null
    [ ! -e /etc/signet ] && [ -f /var/lib/signet/master.key ] && [ -f /var/lib/signet/signet.db ]
    echo "purged: /etc/signet gone, /var/lib/signet kept"
    apt-get install -y -qq --no-install-recommends ./root/'"$(basename "$deb")"' >/dev/null
    SIGNET_PURGE_DATA=yes apt-get purge -y -qq signet >/dev/null
    [ ! -e /var/lib/signet ]
    echo "purged with SIGNET_PURGE_DATA=yes: /var/lib/signet gone"
  ' >"$work/install.log" 2>&1 || install=$?
fi

echo
say "last lines of scripts/test.sh"
grep -E "^(# (tests|pass|fail|suites|cancelled|skipped)|[0-9]+% tests passed|Total Test time|== )" "$work/test.log" || true
tail -n 3 "$work/test.log"
say "whoami: $(cat "$work/whoami.log")"
say "packages: $(ls "$root"/src/packages/ 2>/dev/null | tr '\n' ' ')"
say "the package on a bare Debian 12:"
cat "$work/install.log"
if [ "$status" -ne 0 ] || [ "$whoami" -ne 0 ] || [ "$package" -ne 0 ] || [ "$install" -ne 0 ]; then
  say "FAILED (scripts/test.sh exit $status, whoami exit $whoami, package.sh exit $package, installation exit $install)"
  exit 1
fi
say "passed: both README commands work on a bare Debian 12, and the package installs and serves on another"
