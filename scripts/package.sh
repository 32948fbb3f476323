#!/usr/bin/env bash
# Builds the two Debian packages from a build of this tree (scripts/build.sh's build/ unless
# told otherwise), with dpkg-deb:
#   signet_<version>_<arch>.deb      /usr/bin/signet, libsignet.so.0, the built-in plugins in
#                                    /usr/lib/signet/plugins, /etc/signet/signet.json (a conffile),
#                                    the systemd unit, and the `signet` user and /var/lib/signet
#                                    (0700) made by its postinst;
#   signet-dev_<version>_<arch>.deb  the SDK: headers, the libsignet.so link, the plugin test kit
#                                    and the CMake package, for find_package(Signet).
# Their dependencies are the Debian libraries the binaries link (dpkg-shlibdeps), so that
# `apt install ./signet_<version>_<arch>.deb` pulls them in on a bare Debian 12.
#
#   scripts/package.sh [BUILD_DIR] [OUT_DIR]     defaults: build, BUILD_DIR/packages
# Prints the path of each package. The version is the one `signet --version` prints.
set -euo pipefail
cd "$(dirname "$0")/.."
tree=$PWD
build=$(realpath "${1:-build}")
out=$(realpath -m "${2:-$build/packages}")
maintainer=${SIGNET_DEB_MAINTAINER:-"Signet maintainers <maintainers@signet.invalid>"}

[ -f "$build/CMakeCache.txt" ] || { echo "package.sh: $build is not a build (scripts/build.sh)" >&2; exit 2; }
cmake --build "$build" >/dev/null  # nothing to do when it is current
version=$("$build/gateway/signet" --version | awk '{ print $2 }')
arch=$(dpkg --print-architecture)
stage=$(mktemp -d /tmp/signet-package.XXXXXX)
trap 'rm -rf "$stage"' EXIT
mkdir -p "$out"

# Each component into its own root, stripped (the build keeps its line tables).
for component in runtime dev; do
  cmake --install "$build" --prefix "$stage/$component/usr" --component "$component" --strip >/dev/null
done
runtime=$stage/runtime dev=$stage/dev

install -D -m 0644 packaging/debian/signet.json "$runtime/etc/signet/signet.json"
install -D -m 0644 packaging/debian/signet.service "$runtime/lib/systemd/system/signet.service"
install -d "$runtime/usr/share/doc/signet" "$dev/usr/share/doc/signet-dev"
install -m 0644 README.md docs/*.md "$runtime/usr/share/doc/signet/"
install -m 0644 docs/writing-plugins.md "$dev/usr/share/doc/signet-dev/"

# The Debian packages of the libraries that the binaries under a root need, as dpkg-shlibdeps
# writes them. libsignet itself is in the runtime package, found there, and left out.
shlibdeps() {
  local root=$1 work files=()
  work=$(mktemp -d "$stage/shlibdeps.XXXXXX")
  mkdir -p "$work/debian"
  printf 'Source: signet\n\nPackage: signet\nArchitecture: any\n' >"$work/debian/control"
  while IFS= read -r -d '' f; do files+=("-e$f"); done < <(
    find "$root" -type f \( -path '*/bin/*' -o -name '*.so' -o -name '*.so.*' \) -print0)
  (cd "$work" && dpkg-shlibdeps -O --ignore-missing-info -l"$runtime/usr/lib" "${files[@]}" \
    2>"$work/log") || { cat "$work/log" >&2; return 1; }
}

# control FILE_ROOT NAME DEPENDS DESCRIPTION...
control() {
  local root=$1 name=$2 depends=$3
  shift 3
  mkdir -p "$root/DEBIAN"
  {
    echo "Package: $name"
    echo "Version: $version"
    echo "Architecture: $arch"
    echo "Maintainer: $maintainer"
    echo "Installed-Size: $(du -sk --exclude=DEBIAN "$root" | cut -f1)"
    echo "Depends: $depends"
    echo "Section: net"
    echo "Priority: optional"
    echo "Description: $1"
    shift
    for line in "$@"; do echo " $line"; done
  } >"$root/DEBIAN/control"
  (cd "$root" && find . -path ./DEBIAN -prune -o -type f -printf '%P\0' | sort -z |
    xargs -0 md5sum >DEBIAN/md5sums)
}

# adduser makes the service user; procps has /bin/kill, which the unit's ExecReload runs.
runtimeDepends=$(shlibdeps "$runtime" | sed -n 's/^shlibs:Depends=//p')
devDepends=$(shlibdeps "$dev" | sed -n 's/^shlibs:Depends=//p')
control "$runtime" signet "$runtimeDepends, adduser, procps" \
  "self-hostable wallet-infrastructure gateway" \
  "Signet serves the coordinator public API that the official @turnkey client SDKs" \
  "speak, with its built-in plugins (signing, sessions, webhooks, the auth proxy, ...)," \
  "on SQLite or PostgreSQL. It runs as the signet system service, with its data in" \
  "/var/lib/signet and its configuration in /etc/signet/signet.json."
echo /etc/signet/signet.json >"$runtime/DEBIAN/conffiles"
install -m 0755 packaging/debian/postinst packaging/debian/prerm packaging/debian/postrm \
  "$runtime/DEBIAN/"

control "$dev" signet-dev "signet (= $version), $devDepends, libpoco-dev, libboost-dev" \
  "Signet plugin SDK" \
  "Headers, libsignet, the plugin test kit and the CMake package (find_package(Signet))" \
  "for building Signet plugins out of tree against the installed gateway."

for root in "$runtime" "$dev"; do
  name=$(sed -n 's/^Package: //p' "$root/DEBIAN/control")
  dpkg-deb --root-owner-group -Zxz --build "$root" "$out/${name}_${version}_${arch}.deb" >/dev/null
  echo "$out/${name}_${version}_${arch}.deb"
done
