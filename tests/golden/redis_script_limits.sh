#!/usr/bin/env bash
# `redlock-sim redis` at the model's script limits: a script past lua-time-limit that ends takes
# its virtual time (redis-cli would wait for it); one that never ends (read-only or after a
# write) reaches the model's cap, and since this session is the node's only client nobody could
# SCRIPT KILL it: the session ends at once with exit 1 and the limit named, instead of hanging
# as redis-cli would. Never a hang: each case has a timeout.
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
limit="^redlock-sim: redis: line 1: limit: script_limit: the script still ran after the model's \
100000000 Lua instructions \(10000 ms of virtual time at 10000 per ms\); real Redis 7.0 answers \
other clients BUSY after lua-time-limit \(5000 ms\) and runs it until"
check "read-only endless loop" 1 "" "$limit SCRIPT KILL or SHUTDOWN NOSAVE \(this session is its only client\)$" \
  $'EVAL "while true do end" 0\nPING\n'
check "endless tail call" 1 "" "$limit SCRIPT KILL or SHUTDOWN NOSAVE" \
  $'EVAL "local function f() return f() end return f()" 0\n'
check "pathological pattern" 1 "" "$limit SCRIPT KILL or SHUTDOWN NOSAVE" \
  $'EVAL "return string.find(string.rep(\'a\', 100000), \'.-.-.-.-.-.-.-.-.-b\')" 0\n'
check "loop after a write" 1 "" \
  "${limit/line 1/line 2} SHUTDOWN NOSAVE \(it has written: SCRIPT KILL gets UNKILLABLE\)" \
  $'# a write, then for ever\nEVAL "redis.call(\'set\', \'k\', \'v\') while true do end" 0\nPING\n'
# 60 000 000 instructions: 6 s of virtual time, past lua-time-limit; the reply, then TIME 6 s on.
check "busy script that ends" 0 $'(integer) 30000000\n1) "1767225606"\n2) "0"' '^$' \
  $'EVAL "local n = 0 for i = 1, 30000000 do n = n + 1 end return n" 0\nTIME\n'
# CONFIG SET lua-time-limit (busy-reply-threshold) is the threshold the session uses: 15 000 000
# instructions (1.5 s) are busy past 1000 ms and take their time (5000 ms: they would take none).
check "lowered threshold" 0 $'OK\n(integer) 7500000\n1) "1767225601"\n2) "500000"' '^$' \
  $'CONFIG SET lua-time-limit 1000\nEVAL "local n = 0 for i = 1, 7500000 do n = n + 1 end return n" 0\nTIME\n'
check "limit names the set threshold" 1 "OK" "lua-time-limit \(1000 ms\)" \
  $'CONFIG SET busy-reply-threshold 1000\nEVAL "while true do end" 0\n'
# SHUTDOWN stops the node: redis-cli prints nothing for it and cannot connect for later lines;
# the session ends there with exit 0, as redis-cli's does.
check "shutdown nosave" 0 "PONG" \
  "^redlock-sim: redis: line 2: the node shut down \(SHUTDOWN, nothing saved\); the session ends$" \
  $'PING\nSHUTDOWN NOSAVE\nPING\n'
check "shutdown syntax error goes on" 0 $'(error) ERR syntax error\nPONG' '^$' \
  $'SHUTDOWN NOSAVE SAVE\nPING\n'
[[ $failures -eq 0 ]] && echo "9 scripts past lua-time-limit or SHUTDOWNs: reported as expected"
[[ $failures -eq 0 ]]
