#!/usr/bin/env bash
# Makes the README's picture from the real report: runs the Kleppmann clock-jump scenario with
# --html, opens the page in headless Debian chromium and photographs its top as it prints, into
# docs/kleppmann-clock-jump.png. Never drawn by hand: rerun this after changing the report.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
install_dependencies
install_browser_test_dependencies
configure_and_build
report=$build_dir/readme/kleppmann-clock-jump.html
mkdir -p "$(dirname "$report")"
# From the repository's root, so the page's "reproduce" line names the scenario relatively.
(cd "$repo_root" &&
  "$build_dir/redlock-sim" run scenarios/kleppmann-clock-jump.json --html "$report" >/dev/null) ||
  true
node "$repo_root/tests/browser/screenshot.js" "$report" "$repo_root/docs/kleppmann-clock-jump.png"
echo "== wrote docs/kleppmann-clock-jump.png ($(stat -c %s "$repo_root/docs/kleppmann-clock-jump.png") bytes)"
