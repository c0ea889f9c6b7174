#!/usr/bin/env bash
# Builds everything with AddressSanitizer and UndefinedBehaviorSanitizer into build-sanitize/
# (REDLOCK_SANITIZE=ON: no jemalloc, -fno-sanitize-recover so any report fails its test), then
# runs the default suite (everything but `slow`, every label) there. Extra arguments go to ctest.
# Takes long: every test runs instrumented. Ends with the figures: tests run and passed, time,
# inputs the fuzz targets' short runs tried, sanitizer reports, processes left behind.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
install_dependencies
sanitize_dir=${REDLOCK_SANITIZE_BUILD_DIR:-$repo_root/build-sanitize}
build_started=$(date +%s)
cmake -S "$repo_root" -B "$sanitize_dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DREDLOCK_SANITIZE=ON \
  >/dev/null
nice cmake --build "$sanitize_dir" -j "$(nproc)"
build_seconds=$(($(date +%s) - build_started))
install_browser_test_dependencies
install_deploy_check_dependencies
"$repo_root/scripts/install-drivers.sh" >/dev/null

# Every report goes to a file of its own (log_path, one per process), so that a report from a
# process whose stderr a test captures or discards is counted too; the log is searched as well.
reports_dir=$sanitize_dir/sanitizer-reports
rm -rf "$reports_dir"
mkdir -p "$reports_dir"
# verify_asan_link_order=0: real-mode clients run with the (uninstrumented) clock shim preloaded.
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0:verify_asan_link_order=0}
export ASAN_OPTIONS="$ASAN_OPTIONS:log_path=$reports_dir/asan"
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
export UBSAN_OPTIONS="$UBSAN_OPTIONS:log_path=$reports_dir/ubsan"

# Every process the suite starts inherits this marker (the fixtures pass their environment on),
# so whatever is still running after ctest (a redis-server, a client) is found by it, reported
# and stopped by pid.
run_marker="REDLOCK_SANITIZE_RUN=$$-$(date +%s%N)"
leftover_pids() {
  local environ pid
  for environ in /proc/[0-9]*/environ; do
    pid=${environ#/proc/}
    pid=${pid%/environ}
    [[ $pid == "$$" || $pid == "$BASHPID" ]] && continue
    { tr '\0' '\n' <"$environ"; } 2>/dev/null | grep -qxF "$run_marker" && echo "$pid"
  done
  return 0
}
stop_leftovers() {
  local pid
  for pid in $(leftover_pids); do
    kill -KILL "$pid" 2>/dev/null || true
  done
}
trap stop_leftovers EXIT

cd "$sanitize_dir"
log=$sanitize_dir/sanitize-ctest.log
started=$(date +%s)
status=0
env "$run_marker" nice ctest --output-on-failure -LE slow -j "$(nproc)" "$@" 2>&1 | tee "$log" ||
  status=$?
suite_seconds=$(($(date +%s) - started))

sleep 1  # a process a test stopped just now has a moment to go
leftovers=$(leftover_pids)
left_count=0
if [[ -n $leftovers ]]; then
  left_count=$(wc -l <<<"$leftovers")
  echo "== processes left behind by the suite (stopped now):"
  for pid in $leftovers; do
    echo "   $pid $(tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null || true)"
  done
  stop_leftovers
fi

report_files=$(find "$reports_dir" -type f | sort)
file_reports=0
if [[ -n $report_files ]]; then
  file_reports=$(wc -l <<<"$report_files")
  for file in $report_files; do
    echo "== $file"
    head -40 "$file"
  done
fi
# A report that went to stderr (a process started with other sanitizer options) is in the log.
log_reports=$(grep -c -E "ERROR: AddressSanitizer|runtime error:|ERROR: LeakSanitizer" \
  Testing/Temporary/LastTest.log || true)
reports=$((file_reports + log_reports))

# The fuzz targets' short runs print what they tried: "fuzz: N corpus inputs and M mutations".
fuzz_inputs=$(grep -oE "^fuzz: [0-9]+ corpus inputs and [0-9]+ mutations" \
  Testing/Temporary/LastTest.log | awk '{ sum += $2 + $6 } END { print sum + 0 }' || true)
summary=$(grep -E "tests passed, [0-9]+ tests? failed out of [0-9]+" "$log" | tail -1 || true)

echo "== sanitizer build: $build_seconds s; suite: $suite_seconds s, ctest exit $status"
echo "== tests: ${summary:-no ctest summary}"
echo "== fuzz inputs tried by the short runs: $fuzz_inputs"
echo "== sanitizer reports: $reports ($file_reports report files, $log_reports in the ctest log)"
echo "== processes left behind: $left_count"
[[ $status -eq 0 && $reports -eq 0 && $left_count -eq 0 ]]
