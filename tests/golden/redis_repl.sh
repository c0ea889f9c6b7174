#!/usr/bin/env bash
# `redlock-sim redis` for a person: at a terminal (a real pseudo-terminal here, and with
# --interactive) it prompts, answers `help`, and a bad directive is reported while the session
# goes on; fed a file it stays a script (no prompt, a bad directive ends it with exit 2).
set -uo pipefail
cli=${1:?usage: redis_repl.sh CLI WORK_DIR}
work=${2:?}
rm -rf "$work" && mkdir -p "$work"
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

printf 'SET a b\n.bogus 1\nhelp\nGET a\n' | "$cli" redis --interactive >"$work/out" 2>"$work/err"
status=$?
[[ $status -eq 0 ]] || fail "--interactive exited $status after a bad directive"
grep -qF 'sim-redis> OK' "$work/out" || fail "--interactive printed no prompt before OK"
grep -qF '.advance MS' "$work/out" || fail "--interactive: 'help' printed no help"
grep -qF '"b"' "$work/out" || fail "--interactive: the session did not go on after .bogus"
grep -qF 'unknown directive .bogus' "$work/err" || fail "--interactive: .bogus was not reported"

printf 'SET a b\n.bogus 1\nGET a\n' | "$cli" redis >"$work/out" 2>"$work/err"
status=$?
[[ $status -eq 2 ]] || fail "a script with a bad directive exited $status, expected 2"
[[ "$(cat "$work/out")" == "OK" ]] || fail "a script printed '$(cat "$work/out")', expected OK only"

# A real terminal: standard input and output on a pseudo-terminal, no flag.
python3 - "$cli" >"$work/tty" 2>&1 <<'PY'
import os, pty, sys
pid, fd = pty.fork()
if pid == 0:
    os.execv(sys.argv[1], [sys.argv[1], "redis"])
os.write(fd, b"SET a b\n.bogus 1\nGET a\n")
os.write(fd, b"\x04")
out = b""
while True:
    try:
        chunk = os.read(fd, 4096)
    except OSError:
        break
    if not chunk:
        break
    out += chunk
_, status = os.waitpid(pid, 0)
sys.stdout.write(out.decode(errors="replace"))
sys.stdout.write("\nexit %d\n" % os.waitstatus_to_exitcode(status))
PY
grep -qF 'sim-redis> ' "$work/tty" || fail "at a terminal: no prompt"
grep -qF 'unknown directive .bogus' "$work/tty" || fail "at a terminal: .bogus not reported"
grep -qF '"b"' "$work/tty" || fail "at a terminal: the session did not go on after .bogus"
grep -qxF 'exit 0' "$work/tty" || fail "at a terminal: did not exit 0 at end of input"
[[ $failures -eq 0 ]] && echo "redis: prompt, help and a forgiven directive at a terminal; a script stays a script"
[[ $failures -eq 0 ]]
