#!/usr/bin/env bash
# Every shrunk counterexample committed under docs/safety-matrix/ still reproduces its violation
# (`redlock-sim run` exits 0: the file expects exactly the violation it shows). A model change
# that breaks one means docs/safety-matrix.md must be regenerated (scripts/safety-matrix.sh).
set -u
cli=${1:?usage: matrix_counterexamples.sh CLI SOURCE_DIR}
source_dir=${2:?}
failures=0
count=0
for file in "$source_dir"/docs/safety-matrix/*.json; do
  # Beside each counterexample, matrix --out writes its run's result (*.result.json).
  [[ $file == *.result.json ]] && continue
  count=$((count + 1))
  if ! "$cli" run "$file" > /dev/null 2>&1; then
    echo "does not reproduce: $file"
    failures=$((failures + 1))
  fi
done
echo "$count counterexamples, $failures that do not reproduce"
[ "$count" -gt 0 ] && [ "$failures" -eq 0 ]
