// Profile: SPSCommerce/redlock-py (42ef491, 2016-03-08, unmaintained), redlock/__init__.py.
// Library bugs B14, B20, B22, B24 (docs/catalogue.md).
#pragma once

#include "lock_impls/profiles/library_client.hpp"

#include "lock_impls/families/common.hpp"
#include "lock_impls/lock.hpp"

namespace redlock_sim::profiles {

// The library's own `Redlock` class: acquire() is `Redlock.lock`, release() is `Redlock.unlock`,
// each a loop over the servers in turn as in redlock/__init__.py. It has no extend.
struct RedlockPyOptions {
  uint32_t node_count = 5;
  Duration ttl = Duration::from_ms(10'000);
  // int(time.time()*1000): the wall clock, read in whole milliseconds.
  ClockKind clock = ClockKind::wall;
  // The StrictRedis connection's socket timeout (none: 1 h) for SET; unlock_instance's EVAL keeps
  // `unlock_timeout` (the model's choice since the profile was written).
  Duration request_timeout = Duration::from_s(3600);
  Duration unlock_timeout = Duration::from_s(3600);
  // Retries after the first try: the library's default_retry_count = 3 tries. A configured 0
  // falls back to the default (`retry_count or self.default_retry_count`, issue #24).
  int32_t retry_count = 2;
  RetryDelay retry_delay{.min_ms = 200, .jitter_ms = 0};  // default_retry_delay = 0.2 s
  Drift drift{.ppm = 10'000, .constant_ms = 2, .rounding = DriftRounding::floor_ms};
  uint32_t attempts_cap = 100'000;
};

}  // namespace redlock_sim::profiles
