#!/usr/bin/env bash
# `redlock-sim matrix` for a person and for a log: the terminal table shows whole column and lock
# names, and the progress line appears on a terminal (a real pseudo-terminal here) but not when
# standard error is a file, as with explore; --out writes each violated cell's scenario, result,
# story and HTML report, and the Markdown's links to them work from where the Markdown is.
set -u
cli=${1:?usage: matrix_terminal.sh CLI OUT_DIR}
out=${2:?}
rm -rf "$out" && mkdir -p "$out"
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
args=(matrix --seeds 1 --locks single-instance,redis-plus-plus-redlockmutex
      --columns client-pause,node-clock-rate)
"$cli" "${args[@]}" >"$out/table.txt" 2>"$out/err.txt"
[[ -s "$out/err.txt" ]] && fail "progress written to a file: $(od -c "$out/err.txt" | head -2)"
head -1 "$out/table.txt" | grep -q ' client-pause  *node-clock-rate *$' ||
  fail "the header cuts a column name: '$(head -1 "$out/table.txt")'"
grep -q '^redis-plus-plus-redlockmutex ' "$out/table.txt" || fail "a lock name is cut"
python3 - "$cli" "${args[@]}" >"$out/tty.txt" 2>&1 <<'PY'
import os, pty, sys
pid, fd = pty.fork()
if pid == 0:
    os.execv(sys.argv[1], sys.argv[1:])
out = b""
while True:
    try:
        chunk = os.read(fd, 4096)
    except OSError:
        break
    if not chunk:
        break
    out += chunk
os.waitpid(pid, 0)
sys.stdout.write(out.decode(errors="replace"))
PY
grep -q 'cells 4/4' "$out/tty.txt" || fail "no progress line at a terminal"
# --out: beside each violated cell's shrunk scenario, what `run` shows for it (as explore writes).
"$cli" matrix --seeds 20 --locks zoo-plain-del-release --columns node-pause --quiet \
  --out "$out/cells" >/dev/null 2>&1
cell="$out/cells/zoo-plain-del-release__node-pause"
for ext in json result.json txt html; do
  [[ -s "$cell.$ext" ]] || fail "matrix --out wrote no $cell.$ext"
done
grep -q '"mutual_exclusion": "violated"' "$cell.result.json" || fail "the cell's result is not its violation"
grep -q "redlock-sim run $cell.json" "$cell.txt" || fail "the cell's story names no reproduce line"
"$cli" run "$cell.json" >/dev/null 2>&1 || fail "the cell's scenario does not reproduce"
# Markdown links lead from the Markdown's folder to --out, wherever each is written.
mkdir -p "$out/md"
"$cli" matrix --seeds 20 --locks zoo-plain-del-release --columns node-pause --quiet \
  --out "$out/cells2" --markdown "$out/md/matrix.md" >/dev/null 2>&1
link=$(grep -o '](\.\./cells2/[^)]*)' "$out/md/matrix.md" | head -1 | sed 's/^](//; s/)$//')
[[ -n "$link" && -f "$out/md/$link" ]] || fail "the Markdown's link '$link' does not lead to the cell"
cat "$out/table.txt"
[[ $failures -eq 0 ]] && echo "matrix: whole names; progress at a terminal only"
[[ $failures -eq 0 ]]
