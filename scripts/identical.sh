#!/usr/bin/env bash
# Byte-identical results before and after a change meant not to alter any: builds the CLI of
# git revision REV (default HEAD~1) beside this tree, then compares, byte for byte, every
# scenario's --json result, a safety matrix (--seeds N) and a 2000-seed exploration's
# findings.json (a top-level "tool" object, the build's version and commit, excepted). Exit 0
# when all are identical, 1 naming each difference. --after BINARY compares REV with another
# build's CLI instead of this tree's (the profile-guided one of scripts/build-pgo.sh, say).
#   scripts/identical.sh [REV] [--matrix-seeds N] [--explore-seeds N] [--after BINARY]
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
rev=HEAD~1
matrix_seeds=20
explore_seeds=2000
after_binary=""
while [ $# -gt 0 ]; do
  case "$1" in
    --matrix-seeds) matrix_seeds=$2; shift 2 ;;
    --explore-seeds) explore_seeds=$2; shift 2 ;;
    --after) after_binary=$2; shift 2 ;;
    -*) echo "identical.sh: unknown flag $1"; exit 2 ;;
    *) rev=$1; shift ;;
  esac
done
if [ -n "$after_binary" ]; then
  [ -x "$after_binary" ] || { echo "identical.sh: $after_binary is not an executable"; exit 2; }
else
  "$repo_root/scripts/build.sh" >/dev/null
fi
before_tree="$repo_root/build/identical-before"
work=$(mktemp -d)
trap 'rm -rf "$work"; git -C "$repo_root" worktree remove --force "$before_tree" >/dev/null 2>&1' EXIT
git -C "$repo_root" worktree remove --force "$before_tree" >/dev/null 2>&1
git -C "$repo_root" worktree add --detach "$before_tree" "$rev" >/dev/null 2>&1 ||
  { echo "identical.sh: cannot check out $rev"; exit 2; }
cmake -S "$before_tree" -B "$before_tree/build" -DCMAKE_BUILD_TYPE=Release >/dev/null &&
  cmake --build "$before_tree/build" --target redlock-sim -j "$(nproc)" >/dev/null ||
  { echo "identical.sh: $rev does not build"; exit 2; }
before="$before_tree/build/redlock-sim"
after=${after_binary:-$build_dir/redlock-sim}
status=0
differ() { echo "DIFFERS: $*"; status=1; }
# Byte for byte, except the top-level "tool" object (the binary's version and commit, which
# differ between two builds by design).
same() {
  python3 - "$1" "$2" <<'PY'
import json, sys
def body(path):
    text = open(path, "rb").read()
    try:
        value = json.loads(text)
    except ValueError:
        return text
    if isinstance(value, dict):
        value.pop("tool", None)
    return json.dumps(value, sort_keys=False).encode()
sys.exit(0 if body(sys.argv[1]) == body(sys.argv[2]) else 1)
PY
}
count=0
for file in "$repo_root"/scenarios/*.json; do
  name=$(basename "$file" .json)
  "$before" run "$file" --json "$work/$name.before.json" >/dev/null 2>&1
  "$after" run "$file" --json "$work/$name.after.json" >/dev/null 2>&1
  same "$work/$name.before.json" "$work/$name.after.json" || differ "scenario $name"
  count=$((count + 1))
done
echo "scenarios: $count compared"
"$before" matrix --seeds "$matrix_seeds" --json "$work/matrix.before.json" -j "$(nproc)" >/dev/null 2>&1
"$after" matrix --seeds "$matrix_seeds" --json "$work/matrix.after.json" -j "$(nproc)" >/dev/null 2>&1
same "$work/matrix.before.json" "$work/matrix.after.json" || differ "matrix --seeds $matrix_seeds"
echo "matrix: --seeds $matrix_seeds compared"
for side in before after; do
  bin=$before
  [ $side = after ] && bin=$after
  "$bin" explore "$repo_root/scenarios/redlock-workload.json" --seeds "$explore_seeds" \
    --out "$work/explore.$side" -q -j "$(nproc)" >/dev/null 2>&1
done
same "$work/explore.before/findings.json" "$work/explore.after/findings.json" ||
  differ "explore --seeds $explore_seeds findings.json"
echo "explore: --seeds $explore_seeds findings.json compared"
[ $status -eq 0 ] && echo "identical: every result of $rev and this tree is the same, byte for byte"
exit $status
