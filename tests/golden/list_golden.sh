#!/usr/bin/env bash
# Golden test of `redlock-sim list`: the output must equal tests/golden/list.txt byte for byte.
# The scenarios folder is passed explicitly so the output does not depend on where the binary
# was built. REDLOCK_UPDATE_GOLDEN=1 rewrites the golden file instead (then review the diff).
set -euo pipefail
cli=${1:?usage: list_golden.sh CLI SOURCE_DIR}
source_dir=${2:?usage: list_golden.sh CLI SOURCE_DIR}
golden="$source_dir/tests/golden/list.txt"
actual=$(mktemp)
trap 'rm -f "$actual"' EXIT
"$cli" list --scenarios "$source_dir/scenarios" >"$actual"
if [[ "${REDLOCK_UPDATE_GOLDEN:-0}" == 1 ]]; then
  cp "$actual" "$golden"
  echo "updated $golden"
  exit 0
fi
if ! diff -u "$golden" "$actual"; then
  echo "redlock-sim list differs from $golden; if the change is intended, rerun with" \
       "REDLOCK_UPDATE_GOLDEN=1 and review the diff" >&2
  exit 1
fi
