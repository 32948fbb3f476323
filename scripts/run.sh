#!/usr/bin/env bash
# Sets up a fresh machine, builds Signet, and runs the gateway on its embedded SQLite store.
# First run: creates the data directory and a root organization whose generated API key is
# written (0600) into it as DATA_DIR/<organizationId>.api-key.json, with the ids and the base
# URL, in the shape @turnkey/sdk-server's configuration takes. Then serves until Ctrl-C.
#   scripts/run.sh [DATA_DIR] [LISTEN]     defaults: ./signet-data 127.0.0.1:8080
set -euo pipefail
cd "$(dirname "$0")/.."
data=${1:-signet-data}
listen=${2:-127.0.0.1:8080}
scripts/setup.sh
scripts/build.sh
signet=build/gateway/signet
if [ ! -f "$data/signet.json" ]; then
  "$signet" init --data-dir "$data"
  "$signet" org create --data-dir "$data" --name "My Organization" --user-name admin \
    --base-url "http://$listen"
fi
exec "$signet" serve --data-dir "$data" --listen "$listen"
