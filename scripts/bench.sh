#!/usr/bin/env bash
# Builds and runs the Google Benchmark targets. Figures go to build/bench/*.json and docs/perf.md
# quotes them by hand with the command that produced them. The kernel and Redis benchmarks
# include their bare baselines (a bare coroutine loop, a bare std::unordered_map), and the
# *_over_bare* counters are the ratios to read.
#
#   scripts/bench.sh [benchmark flags]   wall-clock benchmarks
#   scripts/bench.sh --instructions      instruction counts under callgrind (repeatable on a
#                                         noisy shared machine): per simulated event of the
#                                         standard workload, per explored seed
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
"$repo_root/scripts/build.sh" >/dev/null
mkdir -p "$build_dir/bench"

if [ "${1:-}" = "--instructions" ]; then
  command -v valgrind >/dev/null || { echo "bench.sh: valgrind is not installed (apt-get install valgrind)"; exit 2; }
  cli=${REDLOCK_CLI:-$build_dir/redlock-sim}  # REDLOCK_CLI: another build's binary, to compare
  work=$(mktemp -d)
  trap 'rm -rf "$work"' EXIT
  instructions() {  # total instructions of a command, from callgrind's summary line
    valgrind --tool=callgrind --callgrind-out-file="$work/cg.out" "$@" >/dev/null 2>"$work/cg.err" || true
    sed -n 's/^==[0-9]*== Collected : \([0-9]*\).*/\1/p' "$work/cg.err"
  }
  workload="$repo_root/scenarios/redlock-workload.json"
  "$cli" run "$workload" --json "$work/run.json" >/dev/null
  events=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['stats']['events'])" "$work/run.json")
  # Start-up alone (loading the binary and its libraries): `--version`. (`list` parses every
  # scenario file, about 40 M instructions more, which made the per-event figure too low.)
  empty_total=$(instructions "$cli" --version)
  run_total=$(instructions "$cli" run "$workload")
  seeds=20
  explore_total=$(instructions "$cli" explore "$workload" --seeds "$seeds" --shrink-max 0 -q)
  grouped_total=$(instructions "$cli" explore "$workload" --seeds "$seeds" --shrink-max 0 -q \
    --group-by on)
  python3 - "$events" "$empty_total" "$run_total" "$seeds" "$explore_total" "$grouped_total" <<'PY'
import sys
events, empty, run, seeds, explore, grouped = (int(x) for x in sys.argv[1:])
print(f"standard workload (redlock-sim run scenarios/redlock-workload.json): {events} events, "
      f"{run - empty} instructions beyond start-up, {(run - empty) / events:.0f} per event")
print(f"standard exploration (explore --seeds {seeds} --shrink-max 0): "
      f"{(explore - empty) / seeds:.0f} instructions per seed; with --group-by on (no "
      f"attribution runs) {(grouped - empty) / seeds:.0f}")
PY
  exit 0
fi

for bench in "$build_dir"/tests/bench_*; do
  [ -x "$bench" ] || continue
  name=$(basename "$bench")
  echo "== $name"
  "$bench" --benchmark_min_time=1 --benchmark_out="$build_dir/bench/$name.json" \
    --benchmark_out_format=json "$@"
done
