#!/usr/bin/env bash
# Checks that tests/conformance/package-lock.json is one that Debian 12's own npm (9.2) accepts
# with `npm ci`. A bare Debian 12 machine gets that npm from scripts/setup.sh, and npm 9.2
# refuses a lock file written by a newer npm that leaves out optional peer dependencies
# ("Missing: utf-8-validate@5.0.10 from lock file"). Development machines usually have a newer
# npm, so without this check a lock file rewritten there would pass CI and break a user's
# first `scripts/test.sh`.
#
# Where the machine's npm is not 9.2, npm 9.2.0 itself is fetched from the npm registry
# (`npx npm@9.2.0`, an exact version) and asked for a dry run, which only compares the lock
# file with package.json. To regenerate the lock file after changing package.json:
#   (cd tests/conformance && npx -y npm@9.2.0 install --package-lock-only)
set -euo pipefail
cd "$(dirname "$0")/../tests/conformance"
debian_npm=9.2.0
if [ "$(npm --version)" = "$debian_npm" ]; then
  exit 0  # the install step that follows is the check itself
fi
# In a scratch copy: `npm ci`, even a dry run, empties the node_modules beside the lock file.
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
cp package.json package-lock.json "$scratch/"
if ! out=$(cd "$scratch" && npx --yes "npm@$debian_npm" ci --dry-run --ignore-scripts --no-audit \
  --no-fund --loglevel=error 2>&1); then
  echo "$out" >&2
  echo "tests/conformance/package-lock.json is refused by npm $debian_npm (Debian 12's npm)." >&2
  echo "Regenerate it: (cd tests/conformance && npx -y npm@$debian_npm install --package-lock-only)" >&2
  exit 1
fi
echo "package-lock.json: accepted by npm $debian_npm, Debian 12's (this machine has npm $(npm --version))"
