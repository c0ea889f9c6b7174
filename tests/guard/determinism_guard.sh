#!/usr/bin/env bash
# Fails if simulated code uses anything that breaks determinism: real clocks, sleeps, threads,
# the C library's or the standard library's randomness, or unordered containers (whose iteration
# order is unspecified). lock_impls/real/ (the real-Redis backend) is exempt by design.
set -u
root=${1:?usage: determinism_guard.sh SOURCE_DIR}
cd "$root" || exit 2
dirs=()
for d in sim lock_impls scenarios; do [ -d "$d" ] && dirs+=("$d"); done
pattern='std::chrono|<chrono>|system_clock|steady_clock|high_resolution_clock|sleep_for|sleep_until|std::thread|std::jthread|<thread>|std::async|pthread_|[^_[:alnum:]]s?rand\(|random_device|_distribution|[^_[:alnum:].>]time\(|gettimeofday|clock_gettime|unordered_map|unordered_set|usleep|nanosleep'
hits=$(grep -rnE --include='*.cpp' --include='*.hpp' --include='*.h' --include='*.json' \
  "$pattern" "${dirs[@]}" | grep -v '^lock_impls/real/' | grep -v 'determinism-guard: allow')
if [ -n "$hits" ]; then
  echo "determinism guard: banned constructs in simulated code:"
  echo "$hits"
  exit 1
fi
echo "determinism guard: clean (${dirs[*]})"
