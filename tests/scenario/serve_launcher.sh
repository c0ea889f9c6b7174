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
rm -rf "$out" && mkdir -p "$out"
server_pid=""
trap '[ -n "$server_pid" ] && kill "$server_pid" 2>/dev/null; rm -rf "$out/alone"' EXIT
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

"$cli" serve --port 0 scenarios/kleppmann-clock-jump.json >"$out/serve.txt" 2>&1 &
server_pid=$!
url=""
for _ in $(seq 1 100); do
  url=$(sed -n 's|^redlock-sim serve: \(http://127.0.0.1:[0-9]*/\).*|\1|p' "$out/serve.txt")
  [ -n "$url" ] && break
  sleep 0.1
done
[ -n "$url" ] || fail "no address printed: $(cat "$out/serve.txt")"
names=$(python3 -c 'import sys, urllib.request; print(urllib.request.urlopen(sys.argv[1] + "api/scenarios", timeout=10).read().decode())' "$url") ||
  fail "GET ${url}api/scenarios failed"
grep -qF '"name":"kleppmann-clock-jump"' <<<"$names" || fail "scenarios listed: $names"
kill "$server_pid"
wait "$server_pid" 2>/dev/null
kill -0 "$server_pid" 2>/dev/null && fail "the server outlived kill $server_pid"
server_pid=""
echo "serve runs redlock-sim-serve; the CLI loads no HTTP or TLS library"
