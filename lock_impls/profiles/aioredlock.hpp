// Profile: joanvila/aioredlock (685d1b5, 2022-05-19; aioredis 1.x).
// Library bugs B8, B13, B20, B27 (docs/catalogue.md).
#pragma once

#include "lock_impls/families/redlock.hpp"
#include "lock_impls/families/watchdog.hpp"

namespace redlock_sim::profiles {

// retry_count 3 attempts, delay uniform [0.1, 0.3] s; uuid4; the "SET PX if absent or ours,
// else error" script on every instance with asyncio.gather, which waits for all of them (no
// driver timeout: 1 h); validity = lease - elapsed - (lease*0.01 + 2 ms) on the monotonic
// clock; no unlock between tries (`except LockError: continue`, the same identifier kept), a
// too-slow win likewise; final failure unlocks. Extend: the same SET
// script (re-creates an absent key), retries, quorum and validity, failure unlocks. Release:
// quorum of "deleted or already missing".
RedlockOptions aioredlock(uint32_t node_count, Duration lease);

// lock(resource) without lock_timeout: lease internal_lock_timeout 10 s, and the watchdog
// extends every 0.6 * 10 s = 6 s; a failed extension unlocks and marks the lock invalid.
WatchdogOptions aioredlock_watchdog(Duration internal_lock_timeout);

}  // namespace redlock_sim::profiles
