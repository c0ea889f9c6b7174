#!/usr/bin/env bash
# Walks issue 14's list of inputs that crashed, hung or fooled the simulator: each must now give a
# clean error (exit 2, one message), a reported limit (exit 1, the limit named) or Redis's own
# reply (exit 0) -- never a signal, an internal error (exit 3) or a hang (each has a timeout).
# Finer checks of each live in the unit, golden and differential tests named in the comments.
set -uo pipefail
cli=${1:?usage: why_list.sh CLI SOURCE_DIR WORK_DIR}
source_dir=${2:?}
work=${3:?}
rm -rf "$work" && mkdir -p "$work"
failures=0
cases=0

# expect NAME EXITS STDOUT_PATTERN STDERR_PATTERN -- COMMAND...: runs COMMAND (stdin from
# $work/stdin), requires its exit status among EXITS (space-separated) and the patterns (extended
# regular expressions; empty matches anything) in its outputs.
expect() {
  local name=$1 exits=$2 out_pattern=$3 err_pattern=$4
  shift 5
  cases=$((cases + 1))
  local status=0
  timeout 120 "$@" <"$work/stdin" >"$work/out" 2>"$work/err" || status=$?
  if [[ " $exits " != *" $status "* ]]; then
    echo "FAIL $name: exit $status, expected one of: $exits"
    head -c 600 "$work/err"
    failures=$((failures + 1))
    return
  fi
  if [[ -n "$out_pattern" ]] && ! grep -Eq -- "$out_pattern" "$work/out"; then
    echo "FAIL $name: stdout lacks /$out_pattern/:"
    head -c 600 "$work/out"
    failures=$((failures + 1))
  fi
  if [[ -n "$err_pattern" ]] && ! grep -Eq -- "$err_pattern" "$work/err"; then
    echo "FAIL $name: stderr lacks /$err_pattern/:"
    head -c 600 "$work/err"
    failures=$((failures + 1))
  fi
}

redis() {  # redis NAME EXITS STDOUT_PATTERN STDERR_PATTERN LINES: one `redlock-sim redis` session
  printf '%s\n' "$5" >"$work/stdin"
  expect "$1" "$2" "$3" "$4" -- "$cli" redis
}

# --- Lua globals and libraries (tests/differential/corpus/lua_environment.redis) ---
for name in getfenv setfenv newproxy; do
  redis "global $name" 0 "Script attempted to access nonexistent global variable '$name'" "" \
    "EVAL \"return $name\" 0"
done
redis "cjson bit struct cmsgpack present" 0 '4\) "table"' "" \
  'EVAL "return {type(cjson), type(bit), type(struct), type(cmsgpack)}" 0'
redis "math.random is Redis's sequence" 0 '^\(integer\) 397$' "" 'EVAL "return math.random(1000)" 0'
# --- scripts that never end (tests/unit/redis_busy_script_test.cpp, golden.redis_script_limits) ---
limit='limit: script_limit'
redis "while true do end" 1 "" "$limit" 'EVAL "while true do end" 0'
redis "endless tail call" 1 "" "$limit" 'EVAL "local function f() return f() end return f()" 0'
redis "pathological string.find" 1 "" "$limit" \
  "EVAL \"return string.find(string.rep('a', 100000), '.-.-.-.-.-.-.-.-.-b')\" 0"
# --- bytecode, and one script changing what the next sees ---
redis "bytecode refused" 0 "Error compiling script" "" 'EVAL "\x1bLuaQ\x00\x01\x04" 0'
redis "rawset(getfenv(0), 'evil', 42)" 0 "nonexistent global variable 'evil'" "" \
  "EVAL \"rawset(getfenv(0), 'evil', 42)\" 0
EVAL \"rawset(_G, 'evil', 42)\" 0
EVAL \"return evil\" 0"
redis "string.rep replaced for everyone" 0 '^"aaa"$' "" \
  "EVAL \"rawset(getmetatable('').__index, 'rep', function() return 'evil' end)\" 0
EVAL \"return string.rep('a', 3)\" 0"
# --- huge and cyclic replies, __gc after SCRIPT FLUSH (tests/unit/redis_script_limits_test.cpp) ---
redis "reply 100 000 tables deep" 0 "reached lua stack limit" "" \
  'EVAL "local t = {} for i = 1, 100000 do t = {t} end return t" 0'
redis "self-referencing table" 0 "reached lua stack limit" "" \
  'EVAL "local t = {} t[1] = t return t" 0'
redis "userdata __gc after SCRIPT FLUSH" 0 '^PONG$' "" \
  "EVAL \"local p = newproxy(true) getmetatable(p).__gc = function() redis.call('set', 'x', 'y') end\" 0
SCRIPT FLUSH
PING"
redis "a 50 MB string 1000 times in a reply" 0 "its reply is larger than the model's Lua memory" "" \
  "EVAL \"local s = string.rep('x', 50000000) local t = {} for i = 1, 1000 do t[i] = s end return t\" 0"
redis "a 50 MB string SET under 100 keys" 0 "out of the model's Lua memory" "" \
  "EVAL \"local s = string.rep('x', 50000000) for i = 1, 100 do redis.call('set', i, s) end\" 0"
redis "huge string" 0 "out of the model's Lua memory" "" \
  "EVAL \"return string.rep('x', 1000000000)\" 0"
# --- the redis CLI's own directives (golden.cli_bad_input) ---
redis ".advance 100000000000000" 2 "" "runs past the session's range" ".advance 100000000000000"
redis ".clock-step 9223372036854775807" 2 "" "moves the wall clock out of" \
  ".clock-step 9223372036854775807"
printf 'SET k v\000x\n' >"$work/stdin"
expect "NUL byte in a line" 2 "" "a NUL byte" -- "$cli" redis

# --- scenario files the parser accepted and the runner then crashed on ---
base="$work/base.json"
cat >"$base" <<'EOF'
{"name": "why-list", "seed": 1,
 "nodes": [{"name": "N1"}],
 "clients": [{"name": "A", "profile": "redlock", "params": {"ttl_ms": 10000}, "nodes": ["N1"],
              "steps": [{"do": "acquire"}, {"do": "increment"}, {"do": "release"}]}],
 "resource": {"fencing": "none"},
 "limits": {"duration_ms": 60000}}
EOF
: >"$work/stdin"
scenario() {  # scenario NAME EXITS STDERR_PATTERN PYTHON: PYTHON edits the scenario `d`
  python3 - "$base" "$work/$1.json" "$4" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
exec(sys.argv[3])
json.dump(d, open(sys.argv[2], "w"))
EOF
  expect "$1" "$2" "" "$3" -- "$cli" run "$work/$1.json"
}
scenario read-without-resource 2 'steps\[1\].do: step "read" needs' \
  "del d['resource']; d['clients'][0]['steps'][1] = {'do': 'read'}"
scenario write-without-resource 2 'needs the scenario' \
  "del d['resource']; d['clients'][0]['steps'][1] = {'do': 'write'}"
scenario node-clock-rate-1e-9 "0 1" "" "d['nodes'][0]['clock'] = {'rate': [1, 1000000000]}"
scenario client-clock-rate-1e9 2 'clients\[0\].clock: this clock would read past' \
  "d['clients'][0]['clock'] = {'rate': [1000000000, 1]}"
scenario ttl-2-to-62 2 'ttl_ms' "d['clients'][0]['params']['ttl_ms'] = 2**62"
scenario ttl-minus-1 2 'ttl_ms' "d['clients'][0]['params']['ttl_ms'] = -1"
scenario ttl-0 2 'ttl_ms' "d['clients'][0]['params']['ttl_ms'] = 0"
scenario retry-jitter-2-to-62 2 'retry_jitter_ms' \
  "d['clients'][0]['params']['retry_jitter_ms'] = 2**62"
scenario link-to-unused-counter 2 'no process is named "counter"' \
  "d['network'] = {'links': [{'from': 'A', 'to': 'counter', 'delay': {'ms': 5}}]}"
scenario million-ms-hold "0 1" "" \
  "d['clients'][0]['steps'].insert(2, {'do': 'sleep', 'ms': 1000000}); d['limits']['duration_ms'] = 2000000"
# --- memory: a zero-delay, zero-time workload (scenario.memory_limit checks more) ---
expect "zero-time workload" 1 "memory_limit" "" -- \
  "$cli" run "$source_dir/tests/scenario/fixtures/zero-time-workload.json"

echo "$cases inputs from issue 14's list, $failures failures"
[[ $failures -eq 0 ]]
