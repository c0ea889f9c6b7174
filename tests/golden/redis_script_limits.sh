#!/usr/bin/env bash
# `redlock-sim redis` at the model's lua-time-limit: an endless read-only script gets 7.0's
# SCRIPT KILL reply and the session goes on; one that wrote first ends the session with exit 1
# and the limit named (real 7.0 could not kill it). Never a hang: each case has a timeout.
set -uo pipefail
cli=${1:?usage: redis_script_limits.sh CLI}
failures=0
check() {  # name, expected exit, expected stdout, expected stderr pattern, input
  local out err status
  out=$(printf '%s' "$5" | timeout 60 "$cli" redis 2>/tmp/redis_script_limits.$$)
  status=$?
  err=$(cat /tmp/redis_script_limits.$$)
  rm -f /tmp/redis_script_limits.$$
  if [[ $status -ne $2 ]]; then echo "FAIL $1: exit $status, expected $2"; failures=$((failures + 1)); fi
  if [[ "$out" != "$3" ]]; then
    echo "FAIL $1: stdout"; diff <(echo "$3") <(echo "$out"); failures=$((failures + 1))
  fi
  if [[ ! "$err" =~ $4 ]]; then echo "FAIL $1: stderr '$err'"; failures=$((failures + 1)); fi
}
killed='(error) ERR Script killed by user with SCRIPT KILL... script: '
check "read-only endless loop" 0 \
  "${killed}694a5fe1ddb97a4c6a1bf299d9537c7d3d0f84e7, on @user_script:1.
PONG" '^$' $'EVAL "while true do end" 0\nPING\n'
check "endless tail call" 0 \
  "${killed}197e879a891c46126021783a9b088ddb17a16d9e, on @user_script:1." '^$' \
  $'EVAL "local function f() return f() end return f()" 0\n'
check "loop after a write" 1 \
  "${killed}568b86d2fd65cc68609ed729cb9cfb854214362f, on @user_script:1." \
  "^redlock-sim: redis: line 2: limit: a script that had written ran past the model's lua-time-limit \(100000000 Lua instructions\); real Redis 7.0 cannot kill it \(UNKILLABLE\) until SHUTDOWN NOSAVE$" \
  $'# a write, then for ever\nEVAL "redis.call(\'set\', \'k\', \'v\') while true do end" 0\nPING\n'
[[ $failures -eq 0 ]] && echo "3 scripts past the instruction budget: reported as expected"
[[ $failures -eq 0 ]]
