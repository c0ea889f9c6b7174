// Profiles: mike-marcacci/node-redlock, the published npm 5.0.0-beta.2 (54de94c, 2022-03-06)
// and v4.2.0 (870778c). Library bugs B5, B13, B15, B19, B20, B21, B23, B25 (docs/catalogue.md).
#pragma once

#include "lock_impls/families/redlock.hpp"
#include "lock_impls/families/watchdog.hpp"

namespace redlock_sim::profiles {

// 5.0.0-beta.2 (what `npm i redlock` installs): settings driftFactor 0.01, retryCount 10,
// retryDelay 200, retryJitter 100; 16 random bytes hex; the multi-key "exists, then SET PX"
// script by EVALSHA; parallel, resolving as soon as a quorum voted for or against; Date.now()
// (the wall clock); `start` read once before the retry loop, expiration = start + duration -
// (round(0.01 * duration) + 2) and never compared with now; no release between attempts, one
// release after the final failure. Extend: refuses an already-expired lock locally, then the
// SET PX script with retries, no validity check; a failed extend leaves the old Lock's
// expiration as it was. Release: quorum, with retries. No per-request timeout in ioredis (modelled
// as 1 h).
RedlockOptions node_redlock_5_0_0_beta_2(uint32_t node_count, Duration duration);

// using(): extend at expiration - 500 ms (automaticExtensionThreshold) on the lock's clock; a
// failed extension aborts the signal (tells the holder); the routine keeps its expiration.
WatchdogOptions node_redlock_using();

// v4.2.0: each attempt waits for every server; success needs a quorum and expiration > now,
// with start taken per attempt; release between attempts; extend refuses an expired lock, and a
// failed extend attempt unlocks every server (the old lock object still looks valid); unlock()
// is one pass, not retried.
RedlockOptions node_redlock_4_2_0(uint32_t node_count, Duration duration);

}  // namespace redlock_sim::profiles
