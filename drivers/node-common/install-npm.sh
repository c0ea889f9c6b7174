#!/usr/bin/env bash
# Installs a Node driver's packages into its folder's node_modules, exactly as its
# package-lock.json pins them (npm ci). A no-op when node_modules already matches the lock file.
# Called by each Node driver's install.sh (this folder has none: it is no driver):
#   install-npm.sh DRIVER_FOLDER 'LIBRARY VERSION'
set -euo pipefail
cd "$1"
name=$(basename "$(pwd)")
library=$2
for tool in node npm; do
  if ! command -v "$tool" >/dev/null 2>&1; then
    echo "$name: '$tool' is missing: install Node.js and npm (Debian: apt-get install nodejs npm)" >&2
    exit 1
  fi
done
stamp=node_modules/.redlock-sim-lock.sha256
want=$(sha256sum package-lock.json | cut -d' ' -f1)
if [[ -f $stamp && "$(cat "$stamp")" == "$want" ]]; then
  echo "$name: $library already installed"
  exit 0
fi
npm ci --no-audit --no-fund --loglevel=error
echo "$want" > "$stamp"
version() { node -p "require('./node_modules/$1/package.json').version"; }
echo "$name: installed redlock $(version redlock) with ioredis $(version ioredis)"
