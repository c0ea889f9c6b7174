#!/usr/bin/env bash
# Shows that the property tests catch deliberately injected bugs: each mutant edits one line of a
# copy of the source tree, rebuilds the property tests there, and must make the named property
# fail. Prints one line per mutant and exits non-zero if any mutant survives.
# Usage: scripts/mutants.sh            (all mutants; about a minute per mutant on 2 cores)
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
install_dependencies python3
work=$(mktemp -d /tmp/redlock-mutants.XXXXXX)
trap 'rm -rf "$work"' EXIT
src="$work/src"
mkdir -p "$src"
(cd "$repo_root" && tar --exclude='./build*' --exclude='./.git' -cf - .) | tar -xf - -C "$src"

# file | original text (fixed string) | mutated text | property that must fail
mutants=(
  "sim/kernel/simulator.cpp|return a.sequence > b.sequence;|return a.sequence < b.sequence;|KernelProperties.EventsDispatchInTimeThenSequenceOrder"
  "sim/kernel/clock.cpp|offsets_.back().offset + delta;|offsets_.back().offset - delta;|KernelProperties.ClocksFollowRatesAndStepsExactly"
  "sim/kernel/clock.cpp|if (scaled % segment.rate.numerator != 0 \&\& scaled > 0) ++elapsed;|(void)scaled;|KernelProperties.ClocksFollowRatesAndStepsExactly"
  "sim/kernel/network.cpp|delivery = std::max(delivery, l.last_delivery);|(void)0;|KernelProperties.DeliveryIsFifoPerLink"
  "sim/kernel/simulator.cpp|if (p.status_ == ProcessStatus::paused) {|if (false) {|KernelProperties.PausedProcessRunsNoCode"
  "lock_impls/families/common.cpp|return node_count / 2 + 1;|return node_count / 2;|ExplorationProperties.CorrectLocksHoldWithoutClockFaults"
  "lock_impls/families/common.cpp|  const Duration constant = Duration::from_ms(drift.constant_ms);|  const Duration constant = Duration::from_ms(drift.constant_ms); if (ttl.ns() >= 0) return Duration::zero();|ExplorationProperties.RedlockHoldsWithRatesInsideTheDriftBound"
  "sim/resource/resource.cpp|const bool fenced_reads = options_.fencing == FencingMode::fence_all;|const bool fenced_reads = false;|ExplorationProperties.FencedResourceIsSafeForEveryLock"
  "sim/runner/runner.cpp|Duration::from_ms(*fault.duration_ms);|Duration::from_ms(*fault.duration_ms / 20);|ExplorationProperties.DelayedRestartsKeepCorrectLocksSafe"
  "sim/explore/fault_plan.cpp|if (!rng.chance(bounds.on_numerator, bounds.on_denominator)) continue;|continue;|ExplorationProperties.FinderFindsAndShrinksTheClockJumpOverlap"
)

survivors=0
for mutant in "${mutants[@]}"; do
  IFS='|' read -r file original mutated property <<<"$mutant"
  cp "$repo_root/$file" "$src/$file"
  python3 - "$src/$file" "$original" "$mutated" <<'PY' || true
import sys
path, original, mutated = sys.argv[1], sys.argv[2].replace('\\&', '&'), sys.argv[3]
text = open(path).read()
if original not in text:
    sys.exit("mutant not applicable: text not found")
open(path, "w").write(text.replace(original, mutated))
PY
  cmake -S "$src" -B "$work/build" -DCMAKE_BUILD_TYPE=Release >/dev/null
  cmake --build "$work/build" --target property_tests -j "$(nproc)" >/dev/null
  if RC_PARAMS="max_success=200" "$work/build/tests/property_tests" \
      --gtest_filter="$property" >"$work/out.txt" 2>&1; then
    echo "SURVIVED  $file: '$original' -> '$mutated' ($property passed)"
    survivors=$((survivors + 1))
  else
    shrunk=$(grep -m1 -E "Falsifiable after|Failure" "$work/out.txt" || echo "failed")
    echo "caught    $file: '$original' -> '$mutated' by $property: $shrunk"
  fi
  cp "$repo_root/$file" "$src/$file"
done
[ "$survivors" -eq 0 ]
