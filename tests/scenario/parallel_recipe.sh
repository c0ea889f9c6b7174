#!/usr/bin/env bash
# The GNU parallel recipe (scripts/parallel/explore-parallel.sh) on this machine: 5 shards, two at
# a time, merged; RESULTS/merged is byte-identical to `explore --out RESULTS/merged` on one
# machine, and the recipe exits as explore does. A failing shard stops it with exit 2.
set -u
cli=${1:?usage: parallel_recipe.sh CLI SOURCE_DIR WORK_DIR}
source_dir=$(cd "${2:?}" && pwd)
work=${3:?}
cli=$(cd "$(dirname "$cli")" && pwd)/$(basename "$cli")
command -v parallel > /dev/null || { echo "FAIL: GNU parallel is not installed (scripts/common.sh installs it)"; exit 1; }
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1
args=("$source_dir/scenarios/redlock-workload.json" --seeds 40 --checkers rs,mx
  --shrink-max 1 --shrink-runs 60)
"$cli" explore "${args[@]}" --quiet --out results/merged > one.log 2>&1
one_status=$?
[ "$one_status" -eq 1 ] || { cat one.log; echo "FAIL: the unsharded explore exited $one_status, not 1"; exit 1; }
mv results/merged one && rm -rf results
"$source_dir/scripts/parallel/explore-parallel.sh" --shards 5 --slots 2 --results results \
  --cli "$cli" -- "${args[@]}" > recipe.log 2>&1
status=$?
[ "$status" -eq "$one_status" ] || { cat recipe.log; echo "FAIL: the recipe exited $status, not $one_status"; exit 1; }
[ "$(ls -d results/shard-* | wc -l)" -eq 5 ] || { echo "FAIL: not 5 shards"; exit 1; }
diff -r one results/merged || { echo "FAIL: the recipe's merge differs from the unsharded run"; exit 1; }
# A shard that cannot run (a seed range past 2^64) fails the recipe with exit 2.
"$source_dir/scripts/parallel/explore-parallel.sh" --shards 2 --results bad --cli "$cli" -- \
  "${args[@]}" --seed-start 18446744073709551615 > bad.log 2>&1
status=$?
[ "$status" -eq 2 ] || { cat bad.log; echo "FAIL: a failing shard gave exit $status, not 2"; exit 1; }
echo "PASS: 5 shards with GNU parallel merged byte-identical ($(find one -type f | wc -l) files)"
