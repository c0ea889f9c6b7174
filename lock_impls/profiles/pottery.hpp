// Profile: brainix/pottery Redlock (e2f40424, 2026-08-19), pottery/redlock.py.
// Library bugs B12, B21, B24, B28 (docs/catalogue.md).
#pragma once

#include "lock_impls/profiles/library_client.hpp"

#include "lock_impls/families/common.hpp"
#include "lock_impls/lock.hpp"

namespace redlock_sim::profiles {

// The library's own `Redlock` class: acquire() is `Redlock.acquire` (blocking) around
// `__acquire_masters`, extend() is `Redlock.extend`, release() is `Redlock.release`. Each sends
// to every master at once through a BailOutExecutor and reads the replies with
// `concurrent.futures.as_completed`, returning as soon as more than N//2 masters said yes
// (stragglers keep running); when that cannot happen it waits for every master.
struct PotteryOptions {
  uint32_t node_count = 5;
  Duration ttl = Duration::from_ms(10'000);  // auto_release_time = 10 s
  ClockKind clock = ClockKind::monotonic;    // ContextTimer: time.perf_counter()
  // The Redis client's socket timeout (none: 1 h) for SET and the extend script; the release
  // script keeps `release_timeout` (the model's choice since the profile was written).
  Duration request_timeout = Duration::from_s(3600);
  Duration release_timeout = Duration::from_s(3600);
  int32_t retry_count = -1;  // acquire(blocking=True, timeout=-1): until it wins
  RetryDelay retry_delay{.min_ms = 0, .jitter_ms = 200};  // random.uniform(0, _RETRY_DELAY)
  // __drift(): auto_release_time * _CLOCK_DRIFT_FACTOR + .002, in float seconds
  Drift drift{.ppm = 10'000, .constant_ms = 2, .rounding = DriftRounding::exact};
  int32_t num_extensions = 3;  // _NUM_EXTENSIONS
  uint32_t attempts_cap = 100'000;
};

}  // namespace redlock_sim::profiles
