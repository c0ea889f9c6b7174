#!/usr/bin/env bash
# Golden test of `redlock-sim list`: the output must equal tests/golden/list.txt byte for byte.
# The scenarios folder is passed explicitly so the output does not depend on where the binary
# was built. With GOLDEN and LIST_ARGS, `redlock-sim list LIST_ARGS` must equal GOLDEN (a path in
# the source tree: docs/lock-parameters.md is `list --params`). REDLOCK_UPDATE_GOLDEN=1 rewrites
# the golden file instead (then review the diff).
set -euo pipefail
usage="usage: list_golden.sh CLI SOURCE_DIR [GOLDEN LIST_ARGS...]"
cli=${1:?$usage}
source_dir=${2:?$usage}
shift 2
golden="$source_dir/${1:-tests/golden/list.txt}"
[[ $# -gt 0 ]] && shift
[[ $# -gt 0 ]] || set -- --scenarios "$source_dir/scenarios"
actual=$(mktemp)
trap 'rm -f "$actual"' EXIT
"$cli" list "$@" >"$actual"
if [[ "${REDLOCK_UPDATE_GOLDEN:-0}" == 1 ]]; then
  cp "$actual" "$golden"
  echo "updated $golden"
  exit 0
fi
if ! diff -u "$golden" "$actual"; then
  echo "redlock-sim list $* differs from $golden; if the change is intended, rerun with" \
       "REDLOCK_UPDATE_GOLDEN=1 and review the diff" >&2
  exit 1
fi
