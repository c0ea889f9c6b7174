#!/usr/bin/env bash
# Measures the HTML report of a 10-minute-simulated run with five clients
# (tests/perf/ten-minutes-five-clients.json): the run plus rendering through the CLI, rendering
# alone (Google Benchmark), the file's size, and opening it in headless chromium.
# Figures go to docs/perf.md by hand. Assumes scripts/build.sh has run.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
scenario=$repo_root/tests/perf/ten-minutes-five-clients.json
out=$build_dir/perf-report.html
start=$(date +%s%N)
"$build_dir/redlock-sim" run "$scenario" --html "$out" >/dev/null || true
end=$(date +%s%N)
echo "run + render through the CLI: $(((end - start) / 1000000)) ms"
echo "page size: $(stat -c %s "$out") bytes"
"$build_dir/tests/bench_html_report" --benchmark_repetitions=3 --benchmark_report_aggregates_only=true
if [ -x /usr/bin/chromium ] && [ -d "$repo_root/tests/browser/node_modules/playwright-core" ]; then
  echo "headless chromium: $(node "$repo_root/tests/browser/measure_load.js" "$out")"
fi
