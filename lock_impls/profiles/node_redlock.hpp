// Profiles: mike-marcacci/node-redlock, the published npm 5.0.0-beta.2 (54de94c, 2022-03-06)
// and v4.2.0 (870778c). Library bugs B5, B13, B15, B19, B20, B21, B23, B25 (docs/catalogue.md).
#pragma once

#include "lock_impls/profiles/library_client.hpp"

#include "lock_impls/families/common.hpp"
#include "lock_impls/families/redlock.hpp"
#include "lock_impls/families/watchdog.hpp"

namespace redlock_sim::profiles {

// 5.0.0-beta.2 (what `npm i redlock` installs), written as the library's own `Redlock` class
// (src/index.ts): acquire() is `Redlock.acquire`, extend() is `Redlock.extend`, release() is
// `Redlock.release`, and all three run their script through `Redlock._execute`, the one retry
// loop of `_attemptOperation` votes. Settings driftFactor 0.01, retryCount 10, retryDelay 200,
// retryJitter 100; 16 random bytes hex; Date.now() (the wall clock).
struct NodeRedlockOptions {
  uint32_t node_count = 5;
  Duration ttl = Duration::from_ms(10'000);  // acquire(resources, duration)
  ClockKind clock = ClockKind::wall;         // Date.now()
  // node-redlock has no timeout of its own: a request timeout is the Redis client's (ioredis's
  // commandTimeout), the same for every command (found by staging
  // bug-node-redlock-4-failed-extend-unlocks with the real library). None: 1 h.
  Duration request_timeout = Duration::from_s(3600);
  int32_t retry_count = 10;  // settings.retryCount, for every _execute
  // retryDelay + floor((rand * 2 - 1) * retryJitter): 100..300 ms
  RetryDelay retry_delay{.min_ms = 100, .jitter_ms = 200};
  // Math.round(driftFactor * duration) + 2
  Drift drift{.ppm = 10'000, .constant_ms = 2, .rounding = DriftRounding::round_ms};
  uint32_t attempts_cap = 100'000;
};

// using(): extend at expiration - 500 ms (automaticExtensionThreshold) on the lock's clock; a
// failed extension aborts the signal (tells the holder); the routine keeps its expiration.
WatchdogOptions node_redlock_using();

// v4.2.0: each attempt waits for every server; success needs a quorum and expiration > now,
// with start taken per attempt; release between attempts; extend refuses an expired lock, and a
// failed extend attempt unlocks every server (the old lock object still looks valid); unlock()
// is one pass, not retried.
RedlockOptions node_redlock_4_2_0(uint32_t node_count, Duration duration);

}  // namespace redlock_sim::profiles
