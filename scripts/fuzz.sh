#!/usr/bin/env bash
# Builds the fuzz targets (tests/fuzz: the scenario parser and the run of what it accepts, the
# lines of `redlock-sim redis`, EVAL) with clang's libFuzzer plus ASan in build-fuzz/ and
# runs each for SECONDS (default 60) from its committed seed corpus. New inputs libFuzzer finds
# go to build-fuzz/corpus/<target>, crashes to build-fuzz/artifacts/. Exit 1 on any crash.
#   scripts/fuzz.sh [SECONDS]
# (the ctest test fuzz.libfuzzer_long, label slow, runs it for 300 s per target.)
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
install_dependencies
seconds=${1:-60}
fuzz_dir=${REDLOCK_FUZZ_BUILD_DIR:-$repo_root/build-fuzz}
CC=clang-14 CXX=clang++-14 cmake -S "$repo_root" -B "$fuzz_dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DREDLOCK_LIBFUZZER=ON >/dev/null
targets=(scenario redis_lines eval)
cmake --build "$fuzz_dir" -j "$(nproc)" --target "${targets[@]/#/fuzz_}"
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1}
status=0
for target in "${targets[@]}"; do
  mkdir -p "$fuzz_dir/corpus/$target" "$fuzz_dir/artifacts"
  echo "== fuzz_$target for $seconds s"
  "$fuzz_dir/tests/fuzz_$target" -max_total_time="$seconds" -timeout=30 -rss_limit_mb=2560 \
    -max_len=65536 -print_final_stats=1 -artifact_prefix="$fuzz_dir/artifacts/$target-" \
    "$fuzz_dir/corpus/$target" "$repo_root/tests/fuzz/corpus/$target" 2>"$fuzz_dir/$target.log" ||
    status=1
  grep -E "^stat::number_of_executed_units|^stat::peak_rss_mb|ERROR|SUMMARY" \
    "$fuzz_dir/$target.log" || true
done
exit $status
