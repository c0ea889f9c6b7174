#!/usr/bin/env bash
# A sharded `redlock-sim explore` with GNU parallel (docs/scale-out.md), on this machine or over
# ssh on several: shard K of N runs `explore ... --shard K/N --out RESULTS/shard-K`, in whatever
# order parallel schedules them, then `redlock-sim merge` writes RESULTS/merged: byte for byte
# what `explore ... --out RESULTS/merged` writes on one machine.
#
# usage: explore-parallel.sh --shards N --results DIR [--slots S] [--jobs J] [--sshlogin LOGINS]
#                            [--cli PATH] -- BASE.json EXPLORE-FLAGS...
#   --shards N         how many shards (more shards than slots evens out uneven machines)
#   --results DIR      where the shards and the merge go (over ssh: a folder every host sees)
#   --slots S          shards at a time per host (default: as many as the host has cores)
#   --jobs J           threads per shard (default 1)
#   --sshlogin LOGINS  parallel's -S: e.g. ':,alice@node1,4/node2' (':' is this machine); the
#                      hosts need redlock-sim at the same path and the same working folder
#   --cli PATH         the redlock-sim executable (default: from PATH)
# Exit code: the merge's (explore's: 0 nothing found, 1 violations found); 2 when a shard
# failed or the arguments are wrong.
set -euo pipefail
shards= results= slots=100% jobs=1 sshlogin= cli=redlock-sim
while [ $# -gt 0 ]; do
  case $1 in
    --shards) shards=$2; shift 2 ;;
    --results) results=$2; shift 2 ;;
    --slots) slots=$2; shift 2 ;;
    --jobs) jobs=$2; shift 2 ;;
    --sshlogin) sshlogin=$2; shift 2 ;;
    --cli) cli=$2; shift 2 ;;
    --) shift; break ;;
    *) echo "explore-parallel.sh: unknown option '$1' (see the header of $0)" >&2; exit 2 ;;
  esac
done
if ! [[ $shards =~ ^[1-9][0-9]*$ ]] || [ -z "$results" ] || [ $# -eq 0 ]; then
  echo "usage: explore-parallel.sh --shards N --results DIR [...] -- BASE.json EXPLORE-FLAGS..." >&2
  exit 2
fi
for flag in "$@"; do
  case $flag in
    --out|--out=*|--shard|--shard=*)
      echo "explore-parallel.sh: $flag is set by the script; leave it out" >&2; exit 2 ;;
  esac
done
mkdir -p "$results"
remote=()
[ -n "$sshlogin" ] && remote=(--sshlogin "$sshlogin" --workdir .)
# -q quotes every word of the command (paths with spaces stay whole); {} is the shard K.
# --halt now,fail=1: one failed shard stops the sweep, since the merge would refuse it anyway.
if ! parallel --will-cite -q --halt now,fail=1 --jobs "$slots" "${remote[@]}" \
  "$cli" explore "$@" --jobs "$jobs" --quiet --shard "{}/$shards" --out "$results/shard-{}" \
  ::: $(seq 0 $((shards - 1))) > "$results/shards.log"; then
  cat "$results/shards.log" >&2
  echo "explore-parallel.sh: a shard failed (its output is above)" >&2
  exit 2
fi
exec "$cli" merge "$results"/shard-* --out "$results/merged" --jobs "$jobs" --quiet
