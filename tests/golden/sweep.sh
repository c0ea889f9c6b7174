#!/usr/bin/env bash
# `redlock-sim sweep` end to end: on the catalogue's node-jump, node-rate and pause stories the
# thresholds it prints equal the formulas derived by hand (docs/sweep.md); its terminal output
# equals tests/golden/sweep.txt; bad paths and ranges exit 2 with one message; the HTML page and
# the JSON are the same bytes run twice and whatever --jobs, and every link on the page opens a
# file that exists; `serve` and `compare` refuse bad flags and files with exit 2 too. Runs from
# SOURCE_DIR so paths in the output are the same everywhere.
# REDLOCK_UPDATE_GOLDEN=1 rewrites the golden file instead of comparing.
set -uo pipefail
set -f  # the cases hold JSON paths like $.faults[2]: no globbing
cli=${1:?usage: sweep.sh CLI SOURCE_DIR WORK_DIR}
source_dir=${2:?}
work=${3:?}
golden="$source_dir/tests/golden/sweep.txt"
rm -rf "$work" && mkdir -p "$work"
actual="$work/actual.txt"
: >"$actual"
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
cd "$source_dir" || exit 1

jump=scenarios/node-clock-jump-within-drift.json
rate=scenarios/node-clock-fast-within-drift.json
pause=scenarios/gc-pause-after-acquire.json
# Redlock's defaults in these stories: TTL 10 000 ms, drift = TTL/100 + 2, request timeout 50 ms,
# one-way delay 1 ms. A's hold is [50, 9898) and its keys live until 10 001 on each node's clock.
ttl=10000 drift=$((10000 / 100 + 2)) timeout=50 delay=1
hold_end=$((ttl - drift))           # 9898: A's validity ends (it started counting at 0)
key_when=$((ttl + delay))           # 10001: the key's expiry on N3's clock
b_start=$((hold_end - timeout - 1)) # 9847: B's last start whose hold begins inside A's
b_deliver=$((b_start + delay))      # 9848: B's SET reaches N3

# One case per line: the arguments, split on spaces.
good_cases=(
  # S02: B's try at 2000 meets N3's key unless the jump makes it expire by 2001.
  "sweep $jump --vary \$.faults[2].delta_ms=0..10000:500"
  # S02 at the edge: B tries at 9847; unsafe iff the jump exceeds drift + timeout + 1.
  "sweep $jump --set \$.clients[1].steps[0].at_ms=$b_start --vary \$.faults[2].delta_ms=0..400"
  # S03 at the edge: N3's clock rate instead of the ratio 200/199.
  "sweep $rate --unset \$.nodes[2].clock.rate --set \$.clients[1].steps[0].at_ms=$b_start --vary \$.nodes[2].clock.rate_ppm=0..30000"
  # S06: how long a pause before A's stale write lands after B's.
  "sweep $pause --vary \$.faults[0].duration_ms=0..20000"
  # Both at once: the jump against B's start.
  "sweep $jump --vary \$.faults[2].delta_ms=0..400:50 --vary \$.clients[1].steps[1].at_ms=9700..9950:50 --jobs 2"
)
for c in "${good_cases[@]}"; do
  read -ra args <<<"$c"
  "$cli" "${args[@]}" >"$work/out" 2>"$work/err"
  status=$?
  { echo "\$ redlock-sim $c"; echo "exit $status"; cat "$work/out" "$work/err"; } >>"$actual"
  [[ $status -eq 0 ]] || fail "'$c' exited $status"
done

expect_line() {  # the derived sentence must be in the output of case $1
  if ! grep -qxF -- "$2" <(awk -v c="\$ redlock-sim ${good_cases[$1]}" \
      '$0 == c {on = 1; next} /^\$ redlock-sim/ {on = 0} on' "$actual"); then
    fail "case $1 does not say '$2'"
  fi
}
jump_seen_at_2000=$((key_when + 1 - 2001))
expect_line 0 "mutual exclusion holds for delta_ms <= $((jump_seen_at_2000 - 1)), violated from $jump_seen_at_2000"
expect_line 1 "mutual exclusion holds for delta_ms <= $((drift + timeout + 1)), violated from $((drift + timeout + 2))"
# N3 has expired A's key when floor(b_deliver * (10^6 + ppm) / 10^6) > key_when.
ppm=$(( ((key_when + 1 - b_deliver) * 1000000 + b_deliver - 1) / b_deliver ))
expect_line 2 "mutual exclusion holds for rate_ppm <= $((ppm - 1)), violated from $ppm"
# A writes at 20 as its pause starts and its write reaches the register 1 ms after it resumes;
# B starts its increment at 10 110, its read reaching the register at 10 111. Once A's stale
# write lands at or after B's read, B's write or A's is lost: P >= 10 110 - 20.
a_write=20 b_increment=10110
expect_line 3 "resource safety holds for duration_ms <= $((b_increment - a_write - 1)), violated from $((b_increment - a_write))"

# Bad paths and ranges: exit 2, nothing on standard output, one message (and a hint).
bad_cases=(
  "sweep $jump"
  "sweep $jump --vary faults[2].delta_ms=0..10"
  "sweep $jump --vary \$.faults[2].delta_ms"
  "sweep $jump --vary \$.faults[2].delta_ms=10..0"
  "sweep $jump --vary \$.faults[2].delta_ms=0..10:0"
  "sweep $jump --vary \$.faults[2].delta_ms=0..100000:1"
  "sweep $jump --vary \$.faults[9].delta_ms=0..10"
  "sweep $jump --vary \$.faults[2].kind=0..10"
  "sweep $jump --vary \$.faults[2].frobnicate=0..10"
  "sweep $jump --vary \$.limits.duration_ms=-10..10"
  "sweep $jump --vary \$.a=0..1 --vary \$.b=0..1 --vary \$.c=0..1"
  "sweep $jump --vary \$.faults[2].delta_ms=0..10 --vary \$.faults[2].delta_ms=0..10"
  "sweep $jump --vary \$.faults[2].delta_ms=0..1000:1 --vary \$.faults[1].at_ms=0..1000:1"
  "sweep $jump --vary \$.faults[2].delta_ms=0..10 --set \$.seed"
  "sweep $jump --vary \$.faults[2].delta_ms=0..10 --set \$.seed=x"
  "sweep $jump --vary \$.faults[2].delta_ms=0..10 --unset \$.nodes[9]"
  "sweep $jump --vary \$.faults[2].delta_ms=0..10 --jobs 0"
  "sweep $jump --vary \$.faults[2].delta_ms=0..10 --html no-such-folder/sweep.html"
  "sweep no-such-file.json --vary \$.faults[2].delta_ms=0..10"
  # serve's flags and files are refused the same way, before it listens.
  "serve --port 70000"
  "serve no-such-file.json"
  "serve tests/golden/bad_scenarios/ttl-zero.json"
  # and compare's.
  "compare $jump"
  "compare $jump $rate $pause"
  "compare $jump no-such-file.json"
  "compare $jump $rate --html no-such-folder/both.html"
)
for c in "${bad_cases[@]}"; do
  read -ra args <<<"$c"
  "$cli" "${args[@]}" >"$work/out" 2>"$work/err"
  status=$?
  { echo "\$ redlock-sim $c"; echo "exit $status"; cat "$work/err"; } >>"$actual"
  [[ $status -eq 2 ]] || fail "'$c' exited $status, expected 2"
  [[ -s "$work/out" ]] && fail "'$c' printed on standard output"
  lines=$(wc -l <"$work/err")
  [[ $lines -ge 1 && $lines -le 2 ]] || fail "'$c' printed $lines lines on standard error"
done

# The page, its run reports and the JSON: same bytes twice and whatever --jobs; links resolve.
sweep_args=("$jump" --set "\$.clients[1].steps[0].at_ms=$b_start"
            --vary "\$.faults[2].delta_ms=100..200:25")
mkdir -p "$work/a" "$work/b"
"$cli" sweep "${sweep_args[@]}" --html "$work/a/sweep.html" --json "$work/a/sweep.json" \
  >/dev/null || fail "the HTML sweep exited $?"
"$cli" sweep "${sweep_args[@]}" --html "$work/b/sweep.html" --json "$work/b/sweep.json" \
  --jobs 2 >/dev/null || fail "the HTML sweep with --jobs 2 exited $?"
diff -r "$work/a" "$work/b" >/dev/null || fail "two sweeps differ (--jobs 1 and 2)"
links=$(grep -o 'href="[^"]*"' "$work/a/sweep.html" | sed 's/href="//; s/"$//' | sort -u)
[[ -n "$links" ]] || fail "the sweep page links to no run report"
for link in $links; do
  [[ -f "$work/a/$link" ]] || fail "the sweep page links to $link, which is not there"
done
grep -q '<svg' "$work/a/sweep.html" || fail "the sweep page has no plot"
# A linked point's scenario runs as written and tells the same verdict.
"$cli" run "$work/a/sweep-runs/run_154.json" >"$work/out" 2>&1
grep -qi 'mutual exclusion.*violated' "$work/out" || fail "run_154.json does not violate MX"

if [[ "${REDLOCK_UPDATE_GOLDEN:-0}" == 1 ]]; then
  cp "$actual" "$golden"
  echo "updated $golden"
elif ! diff -u "$golden" "$actual"; then
  echo "sweep's output differs from $golden; if intended, rerun with REDLOCK_UPDATE_GOLDEN=1" \
       "and review the diff"
  failures=$((failures + 1))
fi
[[ $failures -eq 0 ]] && echo "sweep: thresholds as derived, output as recorded, bad input exit 2"
[[ $failures -eq 0 ]]
