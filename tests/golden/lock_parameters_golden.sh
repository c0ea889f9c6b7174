#!/usr/bin/env bash
# Golden test of docs/lock-parameters.md: the file must equal `redlock-sim list --params`, the
# tables every lock declares once in lock_impls/. REDLOCK_UPDATE_GOLDEN=1 rewrites the file.
set -euo pipefail
cli=${1:?usage: lock_parameters_golden.sh CLI SOURCE_DIR}
source_dir=${2:?usage: lock_parameters_golden.sh CLI SOURCE_DIR}
golden="$source_dir/docs/lock-parameters.md"
actual=$(mktemp)
trap 'rm -f "$actual"' EXIT
"$cli" list --params >"$actual"
if [[ "${REDLOCK_UPDATE_GOLDEN:-0}" == 1 ]]; then
  cp "$actual" "$golden"
  echo "updated $golden"
  exit 0
fi
if ! diff -u "$golden" "$actual"; then
  echo "redlock-sim list --params differs from $golden; if the change is intended, rerun with" \
       "REDLOCK_UPDATE_GOLDEN=1 and review the diff" >&2
  exit 1
fi
