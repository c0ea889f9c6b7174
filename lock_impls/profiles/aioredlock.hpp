// Profile: joanvila/aioredlock (685d1b5, 2022-05-19; aioredis 1.x), aioredlock/algorithm.py and
// aioredlock/redis.py. Library bugs B8, B13, B20, B27 (docs/catalogue.md).
#pragma once

#include "lock_impls/profiles/library_client.hpp"

#include "lock_impls/families/common.hpp"
#include "lock_impls/families/watchdog.hpp"
#include "lock_impls/lock.hpp"

namespace redlock_sim::profiles {

// The library's own `Aioredlock`: acquire() is `Aioredlock.lock` and extend() is
// `Aioredlock.extend`, both the one retry loop `Aioredlock._set_lock` over `Redis.set_lock`
// (the SET script on every instance with asyncio.gather, which waits for all of them);
// release() is `Aioredlock.unlock` (`Redis.unset_lock`, a quorum of "deleted or already
// missing").
struct AioredlockOptions {
  uint32_t node_count = 5;
  Duration ttl = Duration::from_ms(10'000);  // internal_lock_timeout = 10.0 (the lease_time)
  ClockKind clock = ClockKind::monotonic;    // time.monotonic()
  // aioredis has no command timeout (1 h) for the SET script; unset_lock keeps
  // `unset_timeout` (the model's choice since the profile was written).
  Duration request_timeout = Duration::from_s(3600);
  Duration unset_timeout = Duration::from_s(3600);
  // Retries after the first try: the library's retry_count = 3 tries, for lock and extend alike.
  int32_t retry_count = 2;
  // random.uniform(retry_delay_min, retry_delay_max) = uniform [0.1, 0.3] s
  RetryDelay retry_delay{.min_ms = 100, .jitter_ms = 200};
  Drift drift{.ppm = 10'000, .constant_ms = 2, .rounding = DriftRounding::exact};  // *0.01+.002
  uint32_t attempts_cap = 100'000;
};

// lock(resource) without lock_timeout: lease internal_lock_timeout 10 s, and the watchdog
// (_auto_extend) extends every 0.6 * 10 s = 6 s; a failed extension unlocks and marks the lock
// invalid.
WatchdogOptions aioredlock_watchdog(Duration internal_lock_timeout);

}  // namespace redlock_sim::profiles
