#!/usr/bin/env bash
# `redlock-sim matrix --base FILE`: the user's scenario as the matrix's row. Client pauses on the
# standard workload (no fencing) violate resource safety, so the run exits 1 and the JSON shows
# the cell; with --locks, each lock runs the same scenario in its own row; partitions alone keep
# correct locks safe (exit 0).
set -u
cli=${1:?usage: matrix_base.sh CLI SOURCE_DIR OUT_DIR}
source_dir=${2:?}
out=${3:?}
rm -rf "$out" && mkdir -p "$out"
base="$source_dir/scenarios/redlock-workload.json"
"$cli" matrix --base "$base" --columns client-pause --seeds 20 --quiet --json "$out/pause.json" \
  > "$out/pause.log" 2>&1
status=$?
cat "$out/pause.log"
[ "$status" -eq 1 ] || { echo "expected exit 1 (a violated cell), got $status"; exit 1; }
grep -q '"lock": "redlock-workload"' "$out/pause.json" ||
  { echo "the row is not named after the scenario"; exit 1; }
grep -Eq '"resource_safety_violations": [1-9]' "$out/pause.json" ||
  { echo "client pauses did not violate resource safety"; exit 1; }
"$cli" matrix --base "$base" --locks redlock,redsync-v4 --columns partition --seeds 5 --quiet \
  --markdown "$out/partition.md" > "$out/partition.log" 2>&1
status=$?
cat "$out/partition.log"
[ "$status" -eq 0 ] || { echo "expected exit 0 (partitions keep correct locks safe), got $status"; exit 1; }
grep -q '^| redsync-v4 | profile (.*) | holds |' "$out/partition.md" ||
  { echo "the Markdown lacks the redsync-v4 row"; exit 1; }
echo "matrix --base runs the user's scenario, per lock with --locks"
