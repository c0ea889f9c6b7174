// Profile: brainix/pottery Redlock (e2f40424, 2026-08-19).
// Library bugs B12, B21, B24, B28 (docs/catalogue.md).
#pragma once

#include "lock_impls/families/redlock.hpp"

namespace redlock_sim::profiles {

// auto_release_time 10 s; a new uuid4 for every attempt; SET NX PX to all masters at once,
// returning as soon as more than N//2 accepted (BailOutExecutor: stragglers keep running);
// validity = art - (art*0.01 + 2 ms) - elapsed on perf_counter (monotonic), > 0; a failed
// attempt releases; blocking acquire retries forever with uniform(0, 0.2 s). Extend: the
// compare-and-PEXPIRE script on a majority, no validity computation, at most 3 extensions.
// Release: majority.
RedlockOptions pottery(uint32_t node_count, Duration auto_release_time);

}  // namespace redlock_sim::profiles
