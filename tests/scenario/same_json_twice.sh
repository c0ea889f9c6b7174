#!/usr/bin/env bash
# Determinism across processes: two separate runs of the same scenario and seed must write
# byte-identical JSON results.
set -u
cli=${1:?usage: same_json_twice.sh CLI FILE}
file=${2:?usage: same_json_twice.sh CLI FILE}
first=$("$cli" run "$file" --json - 2>/dev/null)
second=$("$cli" run "$file" --json - 2>/dev/null)
if [ -z "$first" ]; then
  echo "no JSON from $file"
  exit 1
fi
if [ "$first" != "$second" ]; then
  echo "JSON differs between two runs of $file:"
  diff <(echo "$first") <(echo "$second") | head -20
  exit 1
fi
echo "identical JSON ($(echo "$first" | wc -c) bytes), digest $(echo "$first" | grep trace_digest)"
