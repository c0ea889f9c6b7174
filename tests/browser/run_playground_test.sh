#!/usr/bin/env bash
# Runs the playground's browser test (playground_test.js): `redlock-sim serve` on 127.0.0.1 and a
# free port, driven by Debian's chromium through playwright-core (installed from the committed
# lock file when missing; never downloads a browser). Usage: run_playground_test.sh REDLOCK_SIM
# SOURCE_DIR OUT_DIR
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
if [ ! -x /usr/bin/chromium ]; then
  echo "browser test: /usr/bin/chromium is missing (scripts/test.sh installs Debian's chromium)" >&2
  exit 1
fi
if [ ! -d "$here/node_modules/playwright-core" ]; then
  (cd "$here" && PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 npm ci --no-audit --no-fund --silent)
fi
exec node "$here/playground_test.js" "$@"
