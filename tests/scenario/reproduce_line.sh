#!/usr/bin/env bash
# The reproduce line a run prints runs as pasted: it names the tool by the path it was started
# by (not a bare `redlock-sim` that may be on no PATH), and pasted into a shell in the same
# folder it prints the same summary; the HTML report's reproduce line names the same path.
set -u
cli=${1:?usage: reproduce_line.sh CLI SOURCE_DIR OUT_DIR}
source_dir=${2:?}
out=${3:?}
rm -rf "$out" && mkdir -p "$out"
cd "$source_dir" || exit 1
"$cli" run scenarios/kleppmann-clock-jump.json --html "$out/report.html" >"$out/first.txt" 2>&1
line=$(sed -n 's/^Reproduce: //p' "$out/first.txt")
[[ "$line" == "$cli run scenarios/kleppmann-clock-jump.json --seed 1" ]] ||
  { echo "the reproduce line is '$line'"; exit 1; }
bash -c "$line" >"$out/again.txt" 2>&1
cmp "$out/first.txt" "$out/again.txt" || { echo "the pasted line printed something else"; exit 1; }
grep -qF "reproduce: <code>$cli run scenarios/kleppmann-clock-jump.json --seed 1" "$out/report.html" ||
  { echo "the HTML's reproduce line does not name $cli"; exit 1; }
echo "the reproduce line runs as pasted: $line"
