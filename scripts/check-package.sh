#!/usr/bin/env bash
# The Debian packages, checked in a few minutes (scripts/test.sh runs it; the whole installation
# on a bare Debian 12 is scripts/fresh-debian.sh's): builds them with scripts/package.sh, unpacks
# both with dpkg into a scratch root, and there checks
#   - their control fields: the Debian libraries and tools the runtime package depends on, and
#     the conffile;
#   - the unit with `systemd-analyze verify`, and its sandbox with `systemd-analyze security`;
#   - the packaged binary: --version, its plugins (stripped) found and loaded where it looks,
#     and `init` with the packaged configuration, made once and then left as it is;
#   - signet-dev: sdk/examples/hello-plugin built against its files alone, with its tests,
#     which load the plugin into the packaged signet.
#   scripts/check-package.sh [BUILD_DIR]      default build
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
work=$(mktemp -d /tmp/signet-check-package.XXXXXX)
trap 'rm -rf "$work"' EXIT
fail() { echo "check-package.sh: $*" >&2; exit 1; }

mapfile -t debs < <(scripts/package.sh "$build" "$work/out")
[ "${#debs[@]}" -eq 2 ] || fail "package.sh made ${#debs[@]} packages, not 2"
runtime=${debs[0]} dev=${debs[1]}
version=$("$build/gateway/signet" --version | awk '{ print $2 }')
arch=$(dpkg --print-architecture)
[ "$(basename "$runtime")" = "signet_${version}_${arch}.deb" ] || fail "unexpected name $runtime"
[ "$(basename "$dev")" = "signet-dev_${version}_${arch}.deb" ] || fail "unexpected name $dev"
echo "built $(basename "$runtime") ($(du -h "$runtime" | cut -f1)) and $(basename "$dev") ($(du -h "$dev" | cut -f1))"

depends=$(dpkg-deb -f "$runtime" Depends)
for needed in libpoco libssl3 libsecp256k1 libpq5 libcbor libsqlite3 libboost-filesystem libmimalloc adduser procps; do
  grep -q "$needed" <<<"$depends" || fail "signet does not depend on $needed: $depends"
done
grep -q "signet (= $version)" <<<"$(dpkg-deb -f "$dev" Depends)" || fail "signet-dev does not depend on signet $version"
echo "signet depends on: $depends"

root=$work/root
mkdir -p "$root/var/lib/dpkg/info" "$root/var/lib/dpkg/updates"
touch "$root/var/lib/dpkg/status"
# Unpacked, not configured: the maintainer scripts (the user, the service) are
# scripts/fresh-debian.sh's to run on a real system. Until configuration, dpkg keeps a conffile
# as FILE.dpkg-new.
dpkg --root="$root" --force-depends --unpack "$runtime" "$dev" >/dev/null
dpkg --root="$root" -s signet | grep -q "^ /etc/signet/signet.json " ||
  fail "/etc/signet/signet.json is not a conffile"
config=$root/etc/signet/signet.json.dpkg-new
for path in usr/bin/signet usr/lib/libsignet.so.0 lib/systemd/system/signet.service \
  etc/signet/signet.json.dpkg-new usr/lib/signet/plugins/libsignet-plugin-signing.so \
  usr/include/signet/plugin.hpp usr/lib/libsignet.so usr/lib/cmake/Signet/SignetConfig.cmake; do
  [ -e "$root/$path" ] || fail "/$path is missing"
done
[ -z "$(dpkg-deb -c "$runtime" | grep -E ' \./usr/include/| \./usr/lib/cmake/')" ] ||
  fail "the runtime package holds SDK files"

# The unit as systemd reads it on this machine (the targets it names, /bin/kill), its
# /usr/bin/signet the unpacked one. verify reports a key or value it does not know and goes on:
# anything it prints is a failure. The sandbox's exposure, as systemd scores it, must stay at
# 2.0 or below (1.9 when this was written).
signet=$root/usr/bin/signet
unit=$work/signet.service
sed "s|/usr/bin/signet|$signet|g" "$root/lib/systemd/system/signet.service" >"$unit"
verify=$(systemd-analyze verify "$unit" 2>&1) || fail "systemd-analyze verify: $verify"
[ -z "$verify" ] || fail "systemd-analyze verify: $verify"
exposure=$(systemd-analyze security --offline=true --threshold=20 "$unit" 2>&1) ||
  fail "the unit's sandbox is weaker than before: $(tail -n 1 <<<"$exposure")"
echo "systemd-analyze verify: the unit is valid; security: $(tail -n 1 <<<"$exposure")"

[ "$(env -u SIGNET_PLUGIN_DIR "$signet" --version)" = "signet $version" ] || fail "signet --version"
listed=$(env -u SIGNET_PLUGIN_DIR "$signet" plugins list)
grep -q "^plugin directory: $root/usr/lib/signet/plugins$" <<<"$listed" ||
  fail "the packaged signet looks for plugins elsewhere: $(head -n 1 <<<"$listed")"
for plugin in signing sessions webhooks auth-proxy; do
  grep -q "^$plugin " <<<"$listed" || fail "plugin $plugin is not found by the packaged signet"
done
# The unit's ExecStartPre with the packaged configuration (its plugins loaded): once, then again.
init=(env -u SIGNET_PLUGIN_DIR "$signet" init --data-dir "$work/data" --config "$config")
"${init[@]}" >/dev/null 2>"$work/init.log" || { cat "$work/init.log" >&2; fail "init failed"; }
[ "$(stat -c %a "$work/data")" = 700 ] || fail "the data directory is not 0700"
grep -q "nothing done" <<<"$("${init[@]}" 2>&1)" || fail "a second init did something"
echo "the packaged signet: $version, its plugins found and loaded, init once and then nothing"

# Plugin authors' view: find_package(Signet) in the unpacked /usr, and the plugin loaded into the
# packaged gateway by the example's own tests.
cmake -S sdk/examples/hello-plugin -B "$work/hello-build" -G Ninja \
  -DCMAKE_PREFIX_PATH="$root/usr" >/dev/null
cmake --build "$work/hello-build" >/dev/null
(cd "$work/hello-build" && env -u SIGNET_PLUGIN_DIR ctest --output-on-failure --timeout 120)
echo "signet-dev: hello-plugin built against it and loaded into the packaged signet"
