#!/usr/bin/env bash
# Golden test of what the CLI says to bad flags, files and commands: every case must exit 2,
# print nothing on standard output and one message (plus at most a hint) on standard error, and
# the messages must equal tests/golden/cli_bad_input.txt. Runs from SOURCE_DIR so paths in the
# messages are the same everywhere. REDLOCK_UPDATE_GOLDEN=1 rewrites the golden file instead.
set -uo pipefail
cli=${1:?usage: cli_bad_input.sh CLI SOURCE_DIR WORK_DIR}
source_dir=${2:?}
work=${3:?}
golden="$source_dir/tests/golden/cli_bad_input.txt"
rm -rf "$work" && mkdir -p "$work"
actual="$work/actual.txt"
: >"$actual"
failures=0
s=scenarios/kleppmann-clock-jump.json
# One case per line: the arguments, split on spaces.
cases=(
  "bogus"
  "run"
  "run no-such-file.json"
  "run scenarios"
  "run $s --seed abc"
  "run $s --seed -1"
  "run $s --frobnicate"
  "run $s $s"
  "run $s --html no-such-folder/report.html"
  "run $s --json no-such-folder/result.json"
  "list --scenarios no-such-folder"
  "explore $s"
  "explore $s --seeds 10 --jobs 0"
  "explore $s --seeds 10 --faults gc-pause"
  "explore $s --seeds 10 --checkers safety"
  "explore $s --seeds 10 --time-limit -5"
  "explore $s --seeds 10 --group-by everything"
  "explore $s --seeds -3"
  "explore $s --seeds 10 --out /proc/no-such-folder"
  "explore $s --seeds 10 --class-on 3/2"
  "explore $s --seeds 10 --pause-max-ms -5"
  "explore $s --seeds 10 --faults-per-class 0"
  "matrix --seeds 0"
  "matrix --seeds 2 --locks redsync,nope"
  "matrix --seeds 2 --columns nope"
  "matrix --seeds 2 --markdown no-such-folder/matrix.md"
  "matrix --seeds 2 --base no-such-file.json"
  "matrix --seeds 2 --base scenarios/redlock-workload.json --locks redlock,nope"
  "redis --seed -4"
  "redis stray-argument"
  "matrix --seeds 2 stray-argument"
  "matrix --seeds 2 --json scenarios"
  "matrix --seeds 2 --locks ,"
  "matrix --seeds 2 --pause-max-ms -5"
  "matrix --seeds 2 --clock-rate-max-ppm 1000000"
  "run $s --html -"
  "run $s --js result.json"
  "explore $s --seeds 5 --faults ,"
  "explore $s --seeds 5 --seed-start 18446744073709551615"
  "explore $s --seeds 5 --shrink-runs 1"
  "demo --frobnicate"
  "run tests/golden/bad_scenarios/step-without-resource.json"
  "run tests/golden/bad_scenarios/link-to-unused-counter.json"
  "run tests/golden/bad_scenarios/client-clock-one-billion-times-fast.json"
  "run tests/golden/bad_scenarios/ttl-2-to-the-62.json"
  "run tests/golden/bad_scenarios/ttl-minus-one.json"
  "run tests/golden/bad_scenarios/ttl-zero.json"
  "run tests/golden/bad_scenarios/retry-jitter-too-large.json"
  "run tests/golden/bad_scenarios/pause-before-the-run.json"
  "run tests/golden/bad_scenarios/heal-before-the-run-at-zero.json"
  "run tests/golden/bad_scenarios/nodes-parameter.json"
  "real scenarios/node-clock-fast-within-drift.json"
  "real scenarios/stale-replica-not-promoted.json"
  "real $s --redis-server /nonexistent/redis-server"
  "real $s --driver no-such-driver"
  "real $s --driver redisson"
  "real $s --driver-profiles redlock"
  "real $s --port-base 80"
  "agree $s --json result.json"
  "agree $s --profiles --driver redsync-v4"
  "client --config not-json"
)
# `redlock-sim redis` lines on standard input (printf formats) that must stop it with exit 2.
redis_inputs=(
  '.advance 100000000000000\n'
  '.advance 999999999999\n.advance 2\n'
  '.clock-step 9223372036854775807\n'
  '.clock-step -9223372036854775808\n'
  '.clock-step -1767225600001\n'
  'SET a b\0c\n'
  '\0\n'
)
cd "$source_dir" || exit 1
for c in "${cases[@]}"; do
  # shellcheck disable=SC2086
  "$cli" $c >"$work/out" 2>"$work/err"
  status=$?
  {
    echo "\$ redlock-sim $c"
    echo "exit $status"
    cat "$work/err"
  } >>"$actual"
  if [[ $status -ne 2 ]]; then
    echo "FAIL: '$c' exited $status, expected 2"; failures=$((failures + 1))
  fi
  if [[ -s "$work/out" ]]; then
    echo "FAIL: '$c' printed on standard output"; failures=$((failures + 1))
  fi
  lines=$(wc -l <"$work/err")
  if [[ $lines -lt 1 || $lines -gt 2 ]]; then
    echo "FAIL: '$c' printed $lines lines on standard error, expected a message and a hint"
    failures=$((failures + 1))
  fi
done
for input in "${redis_inputs[@]}"; do
  # shellcheck disable=SC2059
  printf "$input" | "$cli" redis >"$work/out" 2>"$work/err"
  status=$?
  {
    echo "\$ printf '$input' | redlock-sim redis"
    echo "exit $status"
    cat "$work/err"
  } >>"$actual"
  if [[ $status -ne 2 ]]; then
    echo "FAIL: redis fed '$input' exited $status, expected 2"; failures=$((failures + 1))
  fi
  if [[ -s "$work/out" ]]; then
    echo "FAIL: redis fed '$input' printed on standard output"; failures=$((failures + 1))
  fi
  lines=$(wc -l <"$work/err")
  if [[ $lines -lt 1 || $lines -gt 2 ]]; then
    echo "FAIL: redis fed '$input' printed $lines lines on standard error, expected a message and a hint"
    failures=$((failures + 1))
  fi
done
if [[ "${REDLOCK_UPDATE_GOLDEN:-0}" == 1 ]]; then
  cp "$actual" "$golden"
  echo "updated $golden"
elif ! diff -u "$golden" "$actual"; then
  echo "the CLI's bad-input messages differ from $golden; if intended, rerun with" \
       "REDLOCK_UPDATE_GOLDEN=1 and review the diff"
  failures=$((failures + 1))
fi
[[ $failures -eq 0 ]] && echo "$((${#cases[@]} + ${#redis_inputs[@]})) bad inputs: exit 2, one message each, as recorded"
[[ $failures -eq 0 ]]
