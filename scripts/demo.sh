#!/usr/bin/env bash
# The main job: builds, then replays the headline story and writes its report.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
"$repo_root/scripts/build.sh"
"$build_dir/redlock-sim" demo | tee "$build_dir/demo.txt"
echo "== report written to $build_dir/demo.txt"
