#!/usr/bin/env bash
# `explore --quiet` on one worker starts no thread: libstdc++ then keeps shared_ptr counts
# unlocked (`__libc_single_threaded`), which the seeds' shared request argvs use on every
# message. With two workers it does start them (which shows the check sees threads at all).
# gdb stops at the first clone/clone3 system call. A sanitized build's LeakSanitizer would start
# a tracer thread at exit (and refuses ptrace), so leak checking is off in the traced runs.
set -u
cli=${1:?usage: explore_threads.sh CLI SOURCE_DIR OUT_DIR}
source_dir=${2:?}
out=${3:?}
rm -rf "$out" && mkdir -p "$out"
fail() { echo "explore_threads: $*"; exit 1; }
command -v gdb >/dev/null || fail "gdb is not installed"

# Prints gdb's log of running `explore` with the given extra flags, stopped at a thread's start.
traced() {
  ASAN_OPTIONS=detect_leaks=0 gdb -q -nx -batch -iex 'set debuginfod enabled off' \
    -ex 'set startup-with-shell off' -ex 'catch syscall clone clone3' -ex run -ex kill \
    --args "$cli" explore "$source_dir/scenarios/redlock-workload.json" --seeds 4 \
    --shrink-max 0 -q --out "$out/explore" "$@" 2>&1
}

one=$(traced --jobs 1)
if grep -q 'ptrace: Operation not permitted' <<<"$one"; then
  echo "explore_threads: skipped, this machine forbids ptrace (gdb cannot trace)"
  exit 77
fi
grep -q 'Catchpoint 1 (call to' <<<"$one" && fail "explore -q --jobs 1 started a thread: $one"
# Exit 0, or 1 should the seeds find a violation: either way the run reached its end.
grep -Eq 'exited (normally|with code 01)' <<<"$one" ||
  fail "explore --jobs 1 did not run to its end: $one"
two=$(traced --jobs 2)
grep -q 'Catchpoint 1 (call to' <<<"$two" ||
  fail "explore --jobs 2 started no thread (is the check blind?): $two"
echo "explore_threads: one worker, no thread; two workers, threads"
