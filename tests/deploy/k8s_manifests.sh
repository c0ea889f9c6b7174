#!/usr/bin/env bash
# The Kubernetes manifests without a cluster: every document of deploy/k8s validates against the
# Kubernetes schema of its kind (kubernetes-models, pinned by tests/deploy/package-lock.json), a
# broken copy is refused, and the Jobs' very shell commands, run here for every completion index
# with a smaller SEEDS and SHARDS, merge to the bytes of the one-machine run.
set -u
cli=${1:?usage: k8s_manifests.sh CLI SOURCE_DIR WORK_DIR}
source_dir=$(cd "${2:?}" && pwd)
work=${3:?}
cli=$(cd "$(dirname "$cli")" && pwd)/$(basename "$cli")
here=$source_dir/tests/deploy
fail() { echo "FAIL: $*"; exit 1; }
if [ ! -d "$here/node_modules/kubernetes-models" ]; then
  (cd "$here" && npm ci --no-audit --no-fund --silent) || fail "npm ci in tests/deploy failed"
fi
rm -rf "$work" && mkdir -p "$work/broken" "$work/bin" && cd "$work" || exit 1
node "$here/check_k8s.mjs" "$source_dir/deploy/k8s" || fail "the manifests do not validate"
# The check can fail: a completions that is not a number, and a volume that is not declared.
sed 's/completions: 10$/completions: ten/' "$source_dir/deploy/k8s/explore-indexed-job.yaml" \
  > broken/job.yaml
node "$here/check_k8s.mjs" broken > broken.log 2>&1 && fail "a non-numeric completions passed"
grep -q "completions must be integer" broken.log || { cat broken.log; fail "no schema message"; }
sed 's/- name: results$/- name: elsewhere/' "$source_dir/deploy/k8s/explore-merge-job.yaml" \
  > broken/job.yaml
node "$here/check_k8s.mjs" broken > broken.log 2>&1 && fail "a mount of an undeclared volume passed"
echo "the schema check refuses broken copies"

# The commands of the Jobs, run here: redlock-sim from PATH, as in the image.
ln -s "$cli" bin/redlock-sim
export PATH=$work/bin:$PATH
node "$here/check_k8s.mjs" "$source_dir/deploy/k8s" --commands > commands.jsonl || fail "--commands"
script_of() { node -e 'for (const l of require("fs").readFileSync(0, "utf8").trim().split("\n")) { const j = JSON.parse(l); if (j.indexed === (process.argv[1] === "indexed")) console.log(j.script); }' "$1" < commands.jsonl; }
env_of() { node -e 'for (const l of require("fs").readFileSync(0, "utf8").trim().split("\n")) { const j = JSON.parse(l); if (j.indexed) console.log(j.env[process.argv[1]]); }' "$1" < commands.jsonl; }
explore_script=$(script_of indexed)
merge_script=$(script_of merge)
faults=$(env_of FAULTS)
export BASE=$source_dir/scenarios/redlock-workload.json SEEDS=40 SHARDS=4 FAULTS=$faults JOBS=1
export RESULTS=$work/results
redlock-sim explore "$BASE" --seeds "$SEEDS" --faults "$FAULTS" --quiet --shrink-max 8 \
  --out "$RESULTS/merged" > one.log 2>&1
one_status=$?
[ "$one_status" -eq 1 ] || { cat one.log; fail "the one-machine run should find violations (exit 1), got $one_status"; }
mv "$RESULTS/merged" one
for k in 3 1 0 2; do
  JOB_COMPLETION_INDEX=$k sh -c "$explore_script" > "shard-$k.log" 2>&1 ||
    { cat "shard-$k.log"; fail "completion index $k exited $?"; }
done
sh -c "$merge_script" > merge.log 2>&1
status=$?
[ "$status" -eq "$one_status" ] || { cat merge.log; fail "the merge Job's command exited $status, not $one_status"; }
diff -r one "$RESULTS/merged" || fail "the merge Job's result differs from the one-machine run"
echo "PASS: the Indexed Job's commands over 4 completion indexes merge byte-identical"
