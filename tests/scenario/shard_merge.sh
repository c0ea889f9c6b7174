#!/usr/bin/env bash
# Sharded explore and matrix merge to the very bytes of the run on one machine: for N = 1, 2, 3
# and 7 shards, run in reverse order and merged from a shuffled list, every file the unsharded
# run writes (findings.json, the shrunk counterexamples with their results, stories and HTML;
# the matrix's JSON, Markdown and counterexamples) is byte-identical, and so is the exit code
# and the report after the first line. A missing shard, a shard run with other arguments, one
# given twice, shards of different N and a base file changed since are refused (exit 2) with the
# shard named, and nothing is written.
set -u
cli=${1:?usage: shard_merge.sh CLI SOURCE_DIR WORK_DIR}
source_dir=$(cd "${2:?}" && pwd)
work=${3:?}
cli=$(cd "$(dirname "$cli")" && pwd)/$(basename "$cli")
rm -rf "$work" && mkdir -p "$work"
fail() { echo "FAIL: $*"; exit 1; }
base=$work/base.json
cp "$source_dir/scenarios/redlock-workload.json" "$base"
common_args=("$base" --checkers rs,mx --shrink-max 2 --shrink-runs 60 --jobs 2)
explore_args=("${common_args[@]}" --seeds 40)
# The run on one machine, from its own folder, with --out out.
mkdir -p "$work/one" && cd "$work/one" || exit 1
"$cli" explore "${explore_args[@]}" --quiet --out out > stdout.txt 2> stderr.txt
one_status=$?
[ "$one_status" -eq 1 ] || { cat stderr.txt; fail "the unsharded explore should find violations (exit 1), got $one_status"; }
ls out/finding-1-*.json > /dev/null 2>&1 || fail "the unsharded explore wrote no counterexample"
for n in 1 2 3 7; do
  dir=$work/explore-$n
  mkdir -p "$dir" && cd "$dir" || exit 1
  for ((k = n - 1; k >= 0; k--)); do
    "$cli" explore "${explore_args[@]}" --quiet --shard "$k/$n" --out "shard-$k" > "shard-$k.log" 2>&1 ||
      { cat "shard-$k.log"; fail "explore shard $k/$n exited $?"; }
  done
  shards=()
  for ((k = 0; k < n; k += 2)); do shards+=("../shard-$k"); done
  for ((k = 1; k < n; k += 2)); do shards=("../shard-$k" "${shards[@]}"); done
  mkdir -p merged && cd merged || exit 1
  "$cli" merge "${shards[@]}" --jobs 2 --quiet --out out > stdout.txt 2> stderr.txt
  status=$?
  [ "$status" -eq "$one_status" ] || { cat stderr.txt; fail "merge of $n explore shards exited $status, not $one_status"; }
  diff -r "$work/one/out" out > diff.txt || { head -20 diff.txt; fail "merge of $n explore shards differs from the unsharded run"; }
  cmp <(tail -n +2 "$work/one/stdout.txt") <(tail -n +2 stdout.txt) ||
    fail "merge of $n explore shards reports otherwise than the unsharded run"
  echo "explore: $n shard(s) merged byte-identical ($(find out -type f | wc -l) files)"
done

# More shards than seeds: the empty shards merge as nothing.
mkdir -p "$work/few-seeds/one" "$work/few-seeds/merged" && cd "$work/few-seeds/one" || exit 1
"$cli" explore "${common_args[@]}" --seeds 3 --quiet --out out > /dev/null 2>&1
cd ../merged || exit 1
for k in 0 1 2 3 4; do
  "$cli" explore "${common_args[@]}" --seeds 3 --quiet --shard "$k/5" --out "shard-$k" > "shard-$k.log" 2>&1 ||
    { cat "shard-$k.log"; fail "explore shard $k/5 of 3 seeds exited $?"; }
done
grep -q "no seed in its share" shard-0.log || fail "an empty shard does not say so"
"$cli" merge shard-*/ --quiet --out out > /dev/null 2>&1
diff -r ../one/out out || fail "5 shards of 3 seeds differ from the unsharded run"
echo "explore: 5 shard(s) of 3 seeds merged byte-identical"

# Refusals: each exits 2, names the shard, and writes nothing.
refuse() {  # refuse WHAT EXPECTED-TEXT ARGS...
  local what=$1 expected=$2
  shift 2
  rm -rf "$work/refused"
  "$cli" "$@" > "$work/refusal.out" 2> "$work/refusal.err"
  local status=$?
  [ "$status" -eq 2 ] || fail "$what: exit $status, not 2"
  grep -qF -- "$expected" "$work/refusal.err" || { cat "$work/refusal.err"; fail "$what: no '$expected' in the message"; }
  [ ! -e "$work/refused" ] || fail "$what: wrote $work/refused"
  echo "refused: $what: $(head -n 1 "$work/refusal.err")"
}
cd "$work/explore-3" || exit 1
refuse "a missing shard" "1 of 3 shards missing: 1" merge shard-0 shard-2 --out "$work/refused"
"$cli" explore "${common_args[@]}" --seeds 41 --quiet --shard 1/3 --out other-seeds > /dev/null 2>&1
refuse "a shard run with other seeds" "other-seeds (shard 1/3) was run with other arguments" \
  merge shard-0 other-seeds shard-2 --out "$work/refused"
grep -qF "seeds '41' there, '40' in shard-0" "$work/refusal.err" || fail "the refusal does not say which argument differs"
refuse "a shard given twice" "are both shard 1/3" merge shard-0 shard-1 shard-1 shard-2 --out "$work/refused"
refuse "shards of different N" "is one of 2 shards, not 3" \
  merge shard-0 ../explore-2/shard-1 shard-2 --out "$work/refused"
refuse "a folder that holds no shard" "no-such-folder: no shard.json" merge no-such-folder --out "$work/refused"
refuse "--shard K/N with K = N" "--shard must be K/N" explore "${explore_args[@]}" --shard 3/3 --out "$work/refused"
refuse "--shard without --out" "--shard needs --out" explore "${explore_args[@]}" --shard 0/3
refuse "--shard with --time-limit" "no --time-limit" explore "$base" --time-limit 5 --shard 0/3 --out "$work/refused"
echo " " >> "$base"
refuse "a base file changed since the shards ran" "was $base changed?" \
  merge shard-0 shard-1 shard-2 --out "$work/refused"
cp "$source_dir/scenarios/redlock-workload.json" "$base"

# The matrix: 3 locks x 3 columns = 9 cells over N = 1, 2, 3, 7 shards (round robin).
matrix_args=(--locks redlock,single-instance,zoo-get-then-del-release
  --columns client-pause,clock-jump,partition --seeds 2 --json matrix.json --markdown matrix.md)
mkdir -p "$work/matrix-one" && cd "$work/matrix-one" || exit 1
"$cli" matrix "${matrix_args[@]}" --quiet --out out > stdout.txt 2> stderr.txt
one_status=$?
[ "$one_status" -le 1 ] || { cat stderr.txt; fail "the unsharded matrix exited $one_status"; }
for n in 1 2 3 7; do
  dir=$work/matrix-$n
  mkdir -p "$dir" && cd "$dir" || exit 1
  for ((k = n - 1; k >= 0; k--)); do
    "$cli" matrix "${matrix_args[@]}" --quiet --shard "$k/$n" --out "shard-$k" > "shard-$k.log" 2>&1 ||
      { cat "shard-$k.log"; fail "matrix shard $k/$n exited $?"; }
  done
  [ ! -e matrix.json ] || fail "a matrix shard wrote the whole matrix's JSON"
  mkdir -p merged && cd merged || exit 1
  "$cli" merge $(printf '../shard-%s\n' $(seq $((n - 1)) -1 0)) --quiet --out out > stdout.txt 2> stderr.txt
  status=$?
  [ "$status" -eq "$one_status" ] || { cat stderr.txt; fail "merge of $n matrix shards exited $status, not $one_status"; }
  for file in matrix.json matrix.md stdout.txt; do
    cmp "$work/matrix-one/$file" "$file" || fail "merge of $n matrix shards: $file differs"
  done
  diff -r "$work/matrix-one/out" out > diff.txt || { head -20 diff.txt; fail "merge of $n matrix shards: counterexamples differ"; }
  echo "matrix: $n shard(s) merged byte-identical"
done
cd "$work/matrix-3" || exit 1
refuse "a missing matrix shard" "1 of 3 shards missing: 2" merge shard-0 shard-1 --out "$work/refused"
refuse "an explore shard among matrix shards" "is a shard of 'explore'" \
  merge shard-0 ../explore-3/shard-1 shard-2 --out "$work/refused"
echo "PASS"
