#!/usr/bin/env bash
# Builds and runs the Google Benchmark targets. Figures go to build/bench/*.json and docs/perf.md
# quotes them by hand with the command that produced them.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
"$repo_root/scripts/build.sh" >/dev/null
mkdir -p "$build_dir/bench"
for bench in "$build_dir"/tests/bench_*; do
  [ -x "$bench" ] || continue
  name=$(basename "$bench")
  echo "== $name"
  "$bench" --benchmark_min_time=1 --benchmark_out="$build_dir/bench/$name.json" \
    --benchmark_out_format=json "$@"
done
