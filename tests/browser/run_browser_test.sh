#!/usr/bin/env bash
# Runs the browser test (report_test.js) against Debian's chromium through playwright-core.
# Installs playwright-core from the committed lock file when it is missing (npm ci; idempotent);
# never downloads a browser. Usage: run_browser_test.sh REDLOCK_SIM SOURCE_DIR OUT_DIR
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
if [ ! -x /usr/bin/chromium ]; then
  echo "browser test: /usr/bin/chromium is missing (scripts/test.sh installs Debian's chromium)" >&2
  exit 1
fi
if [ ! -d "$here/node_modules/playwright-core" ]; then
  (cd "$here" && PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 npm ci --no-audit --no-fund --silent)
fi
exec node "$here/report_test.js" "$@"
