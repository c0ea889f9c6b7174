#!/usr/bin/env bash
# Runs that would grow without bound end at the reported memory limit (issue 14): a zero-delay,
# zero-time workload (4.3 GB before the budget), the same with --trace (6.6 GB), a held
# message behind which a looping client's messages pile up (791 MB), and a file of many faults
# whose event log is what grows. Each must exit 1 with
# `stop_reason: memory_limit` in its JSON and the limit named in its text, well inside a
# `ulimit -v` far below what the machine has (skipped under a sanitizer, which reserves terabytes
# of address space), and give the same JSON twice.
set -euo pipefail
cli=${1:?usage: memory_limit.sh CLI SOURCE_DIR WORK_DIR}
source_dir=${2:?}
work=${3:?}
rm -rf "$work" && mkdir -p "$work"
fixtures="$source_dir/tests/scenario/fixtures"
fail() {
  echo "FAIL: $*" >&2
  exit 1
}
run_limited() {  # run_limited NAME ARGS...: runs under a 1.5 GB address-space limit
  local name=$1
  shift
  local status=0
  ( [[ -n "${REDLOCK_SANITIZER:-}" ]] || ulimit -v 1500000
    exec "$cli" run "$@" --json "$work/$name.json" >"$work/$name.txt" 2>"$work/$name.err" ) ||
    status=$?
  [[ $status -eq 1 ]] || fail "$name: exit $status, expected 1 (limit reached): $(cat "$work/$name.err")"
  grep -q '"stop_reason": "memory_limit"' "$work/$name.json" ||
    fail "$name: no stop_reason memory_limit in $(grep stop_reason "$work/$name.json")"
  grep -q "memory_limit" "$work/$name.txt" || fail "$name: the text does not name the limit"
}
run_limited zero "$fixtures/zero-time-workload.json"
run_limited zero-trace "$fixtures/zero-time-workload.json" --trace "$work/trace.json"
python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$work/trace.json" ||
  fail "the trace export is not JSON"
run_limited held "$fixtures/held-messages-loop.json"
# The event log counts too: 8 000 timed pauses (16 000 events) fit an 8 MB budget when only the
# story is counted, and not once each event's record is.
python3 - "$work/many-faults.json" <<'PY'
import json, sys
faults = [{"kind": "pause", "target": "C1", "at_ms": 10 * i, "duration_ms": 5}
          for i in range(1, 8001)]
json.dump({"name": "many-faults", "description": "8 000 timed pauses of one client.", "seed": 1,
           "nodes": [{"name": "N1"}],
           "clients": [{"name": "C1", "profile": "single-instance", "nodes": ["N1"],
                        "params": {"ttl_ms": 2000},
                        "workload": {"start_ms": 0, "iterations": 1, "work_ms": 0,
                                     "think_ms": 0}}],
           "faults": faults, "limits": {"duration_ms": 300000, "memory_mb": 8}},
          open(sys.argv[1], "w"))
PY
run_limited many-faults "$work/many-faults.json"
# Same seed, same bytes: the limit is counted, not measured.
"$cli" run "$fixtures/zero-time-workload.json" --json "$work/again.json" >/dev/null || true
cmp "$work/zero.json" "$work/again.json" || fail "two runs of the same seed differ"
echo "memory limits: $(grep -h '"events"' "$work/zero.json" "$work/held.json" | tr -d ' \n')"
