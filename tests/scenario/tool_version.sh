#!/usr/bin/env bash
# Every JSON and HTML output names the redlock-sim that made it: version and commit (the
# commit `git describe --always --dirty` gives for the source tree it was built from, as
# `redlock-sim --version` prints it).
set -u
cli=${1:?usage: tool_version.sh CLI SOURCE_DIR OUT_DIR}
source_dir=${2:?}
out=${3:?}
rm -rf "$out" && mkdir -p "$out"
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
cd "$source_dir" || exit 1
version_line=$("$cli" --version)
[[ "$version_line" =~ ^redlock-sim\ ([0-9.]+)\ \(commit\ ([^\)]+)\)$ ]] ||
  { echo "FAIL: --version says '$version_line'"; exit 1; }
version=${BASH_REMATCH[1]} commit=${BASH_REMATCH[2]}
[[ "$commit" == unknown || "$commit" =~ ^[0-9a-f]{12}(-dirty)?$ ]] || fail "commit '$commit'"
s=scenarios/kleppmann-clock-jump.json
"$cli" run $s --json "$out/run.json" --trace "$out/trace.json" --html "$out/run.html" >/dev/null
"$cli" sweep $s --vary '$.faults[0].at_ms=0..1000:500' --json "$out/sweep.json" \
  --html "$out/sweep.html" >/dev/null
"$cli" compare $s scenarios/kleppmann-clock-jump-fenced.json --html "$out/compare.html" >/dev/null
"$cli" matrix --seeds 1 --locks single-instance --columns client-pause --quiet \
  --json "$out/matrix.json" >/dev/null
"$cli" explore $s --seeds 2 --out "$out/explore" >/dev/null 2>&1
for f in run.json trace.json sweep.json matrix.json explore/findings.json; do
  python3 -c '
import json, sys
tool = json.load(open(sys.argv[1]))["tool"]
assert tool == {"name": "redlock-sim", "version": sys.argv[2], "commit": sys.argv[3]}, tool
' "$out/$f" "$version" "$commit" 2>/dev/null || fail "$f does not name redlock-sim $version ($commit)"
done
for f in run.html sweep.html compare.html; do
  grep -qF "redlock-sim $version (commit $commit)" "$out/$f" || fail "$f does not name the tool"
done
[[ $failures -eq 0 ]] && echo "every output names redlock-sim $version (commit $commit)"
[[ $failures -eq 0 ]]
