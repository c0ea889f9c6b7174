#!/usr/bin/env bash
# Builds everything with AddressSanitizer and UndefinedBehaviorSanitizer into build-sanitize/
# (REDLOCK_SANITIZE=ON: no jemalloc, -fno-sanitize-recover so any report fails its test), then
# runs the default suite (everything but `slow`) there. Extra arguments go to ctest.
# Takes long: the build is unoptimised-ish and every test runs instrumented.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
install_dependencies
sanitize_dir=${REDLOCK_SANITIZE_BUILD_DIR:-$repo_root/build-sanitize}
cmake -S "$repo_root" -B "$sanitize_dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DREDLOCK_SANITIZE=ON \
  >/dev/null
cmake --build "$sanitize_dir" -j "$(nproc)"
install_browser_test_dependencies
# verify_asan_link_order=0: real-mode clients run with the (uninstrumented) clock shim preloaded.
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0:verify_asan_link_order=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
cd "$sanitize_dir"
started=$(date +%s)
status=0
ctest --output-on-failure -LE slow -j "$(nproc)" "$@" || status=$?
echo "== sanitizer suite: $(( $(date +%s) - started )) s, ctest exit $status"
# A report that a test tolerated would still be in the logs: count them.
reports=$(grep -c -E "ERROR: AddressSanitizer|runtime error:|ERROR: LeakSanitizer" \
  Testing/Temporary/LastTest.log || true)
echo "== sanitizer reports in the log: $reports"
[[ $status -eq 0 && $reports -eq 0 ]]
