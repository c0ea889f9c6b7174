#!/usr/bin/env bash
# matrix compares its cells with the catalogue only when the seeds suffice (200) or when asked
# (--catalogue): at its default 20 seeds Redlock's rare node-restart cell (MX 2 of 200) reads
# "holds", and the comparison exited 1 with DISAGREEMENTS on a correct model.
set -u
cli=${1:?usage: matrix_catalogue.sh CLI}
failures=0
out=$("$cli" matrix --seeds 20 --locks redlock --columns node-restart --quiet 2>&1)
status=$?
if [ "$status" -ne 0 ] || ! grep -q "not compared at 20 seeds" <<<"$out"; then
  echo "default seeds: expected exit 0 and 'not compared', got $status:"; echo "$out"
  failures=$((failures + 1))
fi
out=$("$cli" matrix --seeds 20 --locks redlock --columns node-restart --quiet --catalogue 2>&1)
status=$?
# Compared (seeds 1..20 of this cell hold today, so it disagrees; either answer is a comparison).
if [ "$status" -gt 1 ] || grep -q "not compared" <<<"$out" ||
  ! grep -Eq "agreement with the catalogue: (every checked cell agrees|DISAGREEMENTS)" <<<"$out"; then
  echo "--catalogue: expected a comparison, got $status:"; echo "$out"
  failures=$((failures + 1))
fi
[ "$failures" -eq 0 ]
