#!/usr/bin/env bash
# Installs npm redlock 5.0.0-beta.2 and ioredis 5.11.1 into this folder's node_modules, exactly as
# package-lock.json pins them (npm ci). A no-op when node_modules already matches the lock file.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")"
for tool in node npm; do
  if ! command -v "$tool" >/dev/null 2>&1; then
    echo "node-redlock-5: '$tool' is missing: install Node.js and npm (Debian: apt-get install nodejs npm)" >&2
    exit 1
  fi
done
stamp=node_modules/.redlock-sim-lock.sha256
want=$(sha256sum package-lock.json | cut -d' ' -f1)
if [[ -f $stamp && "$(cat "$stamp")" == "$want" ]]; then
  echo "node-redlock-5: redlock 5.0.0-beta.2 already installed"
  exit 0
fi
npm ci --no-audit --no-fund --loglevel=error
echo "$want" > "$stamp"
version() { node -p "require('./node_modules/$1/package.json').version"; }
echo "node-redlock-5: installed redlock $(version redlock) with ioredis $(version ioredis)"
