#!/usr/bin/env bash
# Opt-in profile-guided build (g++'s -fprofile-generate / -fprofile-use) into build-pgo/: the
# CLI and the three benchmarks, compiled once with instrumentation, run on a training set that
# covers what users run (a swarm exploration, every scenario file, a safety matrix, the
# benchmarks), then compiled again using the profile. Results are the same byte for byte (the
# profile only moves code and chooses what to inline: scripts/identical.sh --after checks it);
# docs/perf.md says what it gains. The default build (scripts/build.sh) stays without it: this
# one takes about twice as long to build.
#
#   scripts/build-pgo.sh     then build-pgo/redlock-sim, build-pgo/tests/bench_*
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
install_dependencies
pgo_dir=${REDLOCK_PGO_BUILD_DIR:-$repo_root/build-pgo}
targets=(redlock-sim bench_kernel bench_explore bench_redis)
configure() {  # $1: the compiler's profile flags
  cmake -S "$repo_root" -B "$pgo_dir" -DCMAKE_BUILD_TYPE=Release -DREDLOCK_TESTS=ON \
    -DREDLOCK_BENCHMARKS=ON -DREDLOCK_BROWSER_TESTS=OFF -DCMAKE_CXX_FLAGS="$1" >/dev/null
}

# 1. Instrumented. The counters of an earlier training are removed first: g++ adds to them.
configure "-fprofile-generate -fprofile-update=prefer-atomic"
cmake --build "$pgo_dir" -j "$(nproc)" --target "${targets[@]}"
find "$pgo_dir" -name '*.gcda' -delete

# 2. Training, on one thread so that the counts, and so the second build, repeat exactly.
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cli="$pgo_dir/redlock-sim"
# A training step may find a violation (exit 1, what the scenario is for); an error (2) stops.
train() {
  local status=0
  "$@" >/dev/null 2>&1 || status=$?
  [ $status -le 1 ] || { echo "build-pgo.sh: training step failed ($status): $*"; exit 2; }
}
echo "== training"
train "$cli" explore "$repo_root/scenarios/redlock-workload.json" --seeds 200 --jobs 1 -q \
  --out "$work/explore"
train "$cli" explore "$repo_root/scenarios/kleppmann-clock-jump-control.json" --seeds 100 \
  --jobs 1 -q --out "$work/explore-jump"
for file in "$repo_root"/scenarios/*.json; do
  train "$cli" run "$file" --json "$work/run.json"
done
train "$cli" matrix --seeds 2 -j 1
for bench in bench_kernel bench_explore bench_redis; do
  train "$pgo_dir/tests/$bench" --benchmark_min_time=0.05
done

# 3. Optimised with the profile; code the training never ran is still optimised for speed.
configure "-fprofile-use -fprofile-partial-training -Wno-missing-profile"
cmake --build "$pgo_dir" -j "$(nproc)" --target "${targets[@]}"
echo "== built $pgo_dir/redlock-sim (profile-guided)"
