#!/usr/bin/env bash
# Makes docs/'s sweep pictures from real sweeps: the node-jump story with B's second try moved
# over 9000..9950 ms (the overlap shrinks to nothing at 9848), and the map of the jump against
# B's start. Opens each page in headless Debian chromium and photographs it, into
# docs/sweep-node-jump.png and docs/sweep-node-jump-map.png. Never drawn by hand: rerun this
# after changing the sweep page.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
install_dependencies
install_browser_test_dependencies
configure_and_build
out=$build_dir/sweep-picture
rm -rf "$out" && mkdir -p "$out"
story=scenarios/node-clock-jump-within-drift.json
# From the repository's root, so the pages name the scenario relatively.
cd "$repo_root"
"$build_dir/redlock-sim" sweep "$story" --set '$.faults[2].delta_ms=400' \
  --vary '$.clients[1].steps[1].at_ms=9000..9950:50' --html "$out/line.html" >/dev/null
"$build_dir/redlock-sim" sweep "$story" --vary '$.faults[2].delta_ms=0..400:25' \
  --vary '$.clients[1].steps[1].at_ms=9700..9950:25' --jobs 2 --html "$out/map.html" >/dev/null
node "$repo_root/tests/browser/page_screenshot.js" "$out/line.html" "$repo_root/docs/sweep-node-jump.png"
node "$repo_root/tests/browser/page_screenshot.js" "$out/map.html" "$repo_root/docs/sweep-node-jump-map.png"
for picture in sweep-node-jump sweep-node-jump-map; do
  echo "== wrote docs/$picture.png ($(stat -c %s "$repo_root/docs/$picture.png") bytes)"
done
