#!/usr/bin/env bash
# Builds, then runs every test except those labelled `slow`: unit, property, determinism,
# scenario, differential (against a real redis-server the tests start on loopback), real_mode
# (scenarios staged with real redis-servers and client processes), golden and
# browser (the HTML reports in headless Debian chromium, driven by playwright-core from npm).
# Extra arguments go to ctest, e.g. `scripts/test.sh -L unit`.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
"$repo_root/scripts/build.sh"
install_browser_test_dependencies
install_deploy_check_dependencies
"$repo_root/scripts/install-drivers.sh"
cd "$build_dir"
ctest --output-on-failure -LE slow -j "$(nproc)" "$@"
