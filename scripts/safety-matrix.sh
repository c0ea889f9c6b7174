#!/usr/bin/env bash
# Regenerates docs/safety-matrix.md (and docs/safety-matrix.json, and one shrunk counterexample
# per violated cell under docs/safety-matrix/) from `redlock-sim matrix`. The Markdown is never
# edited by hand. Takes a few minutes on 2 cores.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
"$repo_root/scripts/build.sh" >/dev/null
seeds=${SEEDS:-200}
rm -rf "$repo_root/docs/safety-matrix"
"$build_dir/redlock-sim" matrix --seeds "$seeds" --jobs "$(nproc)" --quiet \
  --out "$repo_root/docs/safety-matrix" --link-prefix "safety-matrix/" \
  --markdown "$repo_root/docs/safety-matrix.md" --json "$repo_root/docs/safety-matrix.json"
