#!/usr/bin/env bash
# Makes docs/playground.png from the real playground: runs the playground's browser test
# (`redlock-sim serve` on 127.0.0.1, a free port, headless Debian chromium), which photographs the
# page after a clock jump was edited to 9000 ms, and copies that picture into docs/. Never drawn
# by hand: rerun this after changing the page.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
install_dependencies
install_browser_test_dependencies
configure_and_build
out=$build_dir/playground-picture
bash "$repo_root/tests/browser/run_playground_test.sh" "$build_dir/redlock-sim" "$repo_root" "$out"
cp "$out/playground.png" "$repo_root/docs/playground.png"
echo "== wrote docs/playground.png ($(stat -c %s "$repo_root/docs/playground.png") bytes)"
