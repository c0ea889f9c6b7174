#!/usr/bin/env bash
# `redlock-sim serve` runs the playground server built beside the CLI (redlock-sim-serve), so
# the CLI itself loads neither cpp-httplib nor OpenSSL: every other command starts without them.
# Checks: the CLI's libraries; serve's bad input still refused by the server with exit 2; a CLI
# copied away from its server says so (exit 2); and a served playground answers on 127.0.0.1
# and stops with the pid that was started (exec, not a child).
set -u
cli=${1:?usage: serve_launcher.sh CLI SOURCE_DIR OUT_DIR}
source_dir=${2:?}
out=${3:?}
rm -rf "$out" && mkdir -p "$out" && out=$(cd "$out" && pwd -P)  # as /proc/self/exe names it
server_pid=""
trap '[ -n "$server_pid" ] && kill "$server_pid" 2>/dev/null; rm -rf "$out/alone" "$out/a b"' EXIT
fail() { echo "serve_launcher: $*"; exit 1; }

libraries=$(ldd "$cli") || fail "ldd $cli failed"
if grep -E 'libcpp-httplib|libssl|libcrypto' <<<"$libraries"; then
  fail "$cli loads the HTTP server's libraries"
fi

cd "$source_dir" || exit 1
"$cli" serve --port 70000 >"$out/port.txt" 2>&1
status=$?
[ "$status" = 2 ] || fail "serve --port 70000 exited $status"
grep -qF -- "serve: --port must be in [0, 65535]" "$out/port.txt" || fail "$(cat "$out/port.txt")"

mkdir -p "$out/alone" && cp "$cli" "$out/alone/redlock-sim"
"$out/alone/redlock-sim" serve >"$out/alone.txt" 2>&1
status=$?
[ "$status" = 2 ] || fail "a CLI without its server exited $status"
grep -qF "serve: the playground server is missing: $out/alone/redlock-sim-serve" "$out/alone.txt" ||
  fail "$(cat "$out/alone.txt")"

# start_server CLI LOG: serves the clock-jump file on a free port; sets server_pid and url.
start_server() {
  "$1" serve --port 0 scenarios/kleppmann-clock-jump.json >"$2" 2>&1 &
  server_pid=$!
  url=""
  for _ in $(seq 1 100); do
    url=$(sed -n 's|^redlock-sim serve: \(http://127.0.0.1:[0-9]*/\).*|\1|p' "$2")
    [ -n "$url" ] && return 0
    sleep 0.1
  done
  fail "no address printed by $1: $(cat "$2")"
}

start_server "$cli" "$out/serve.txt"
names=$(python3 -c 'import sys, urllib.request; print(urllib.request.urlopen(sys.argv[1] + "api/scenarios", timeout=10).read().decode())' "$url") ||
  fail "GET ${url}api/scenarios failed"
grep -qF '"name":"kleppmann-clock-jump"' <<<"$names" || fail "scenarios listed: $names"
# The started process is the server itself (exec), not a launcher waiting on a child.
started=$(readlink "/proc/$server_pid/exe")
[[ "$started" == */redlock-sim-serve ]] || fail "pid $server_pid runs $started"
kill "$server_pid"
wait "$server_pid" 2>/dev/null
kill -0 "$server_pid" 2>/dev/null && fail "the server outlived kill $server_pid"
server_pid=""
if python3 -c 'import sys, urllib.request; urllib.request.urlopen(sys.argv[1], timeout=2)' "$url" 2>/dev/null; then
  fail "$url still answers after kill"
fi
# A path that needs quoting is handed over as typed: the playground's reproduce line names it
# once quoted, as `run` prints it.
mkdir -p "$out/a b" && cp "$cli" "$out/a b/redlock-sim" && cp "$(dirname "$cli")/redlock-sim-serve" "$out/a b/"
start_server "$out/a b/redlock-sim" "$out/spaced.txt"
reply=$(python3 - "$url" <<'PY'
import json, sys, urllib.request
text = open("scenarios/kleppmann-clock-jump.json").read()
request = urllib.request.Request(sys.argv[1] + "api/run", data=text.encode(),
                                 headers={"Content-Type": "application/json"})
summary = json.loads(urllib.request.urlopen(request, timeout=30).read().decode())["summary"]
print([line for line in summary.splitlines() if line.startswith("Reproduce: ")][0])
PY
) || fail "POST ${url}api/run failed"
[[ "$reply" == "Reproduce: '$out/a b/redlock-sim' run playground.json --seed 1" ]] ||
  fail "the playground's reproduce line reads: $reply"
kill "$server_pid"
wait "$server_pid" 2>/dev/null
server_pid=""
echo "serve runs redlock-sim-serve; the CLI loads no HTTP or TLS library"
