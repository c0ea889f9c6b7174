// Profiles: sewenew/redis-plus-plus RedLockMutex and RedMutex (2c47000, 2026-01-20),
// src/sw/redis++/patterns/redlock.{h,cpp}. Library bugs B7, B13,
// B19, B20, B22, B24 (docs/catalogue.md).
#pragma once

#include "lock_impls/profiles/library_client.hpp"

#include "lock_impls/families/common.hpp"
#include "lock_impls/families/redlock.hpp"
#include "lock_impls/families/watchdog.hpp"

namespace redlock_sim::profiles {

// RedLockMutex (scripting = true), written as the library's own RedLockMutexVessel: lock() is
// RedLockMutexVessel::lock, extend() is extend_lock, release() is unlock, each one loop over the
// instances in turn as in src/sw/redis++/patterns/redlock.cpp. What the simulator adds is only
// what C++ exceptions do there: a node that errors or times out ends the call.
struct RedLockMutexOptions {
  uint32_t node_count = 5;
  Duration ttl = Duration::from_ms(10'000);
  ClockKind clock = ClockKind::monotonic;  // the library reads the steady clock
  // The connection's socket timeout (none: 1 h): every command of lock, extend_lock and unlock
  // goes through the same `Redis` instance (`_unlock_instance` is `instance.eval`), so the same
  // timeout bounds the unlock script too.
  Duration request_timeout = Duration::from_s(3600);
  int32_t retry_count = 2;  // retries after the first try: the library's retry_count = 3 tries
  RetryDelay retry_delay{.min_ms = 0, .jitter_ms = 200};  // uniform [0, 200] ms (RAND_MAX-scaled)
  Drift drift{.ppm = 10'000, .constant_ms = 2, .rounding = DriftRounding::floor_ms};
  uint32_t attempts_cap = 100'000;
};

// The flag-driven form of the same defaults, for RedMutex and RedMutexTx (below), which still
// run on the Redlock family.
// RedLockMutexVessel::lock: 20 alphanumeric characters; startTime read once before the retry
// loop (the steady clock); SET NX PX on each instance in turn, no socket timeout (1 h), a
// node error escapes lock() (or extend) even after a quorum, leaving the keys already set;
// time_remaining = startTime + ttl - now - (ttl*0.01 + 2 ms); a failed try unlocks, then sleeps
// uniform [0, 200] ms; 3 tries. Extend: compare-and-PEXPIRE (reset) on each instance, quorum and
// positive validity, else unlock all; RedLockMutex fabricates a fresh LockInfo so the local expiry
// pre-check never fires.
RedlockOptions redis_plus_plus_redlock_mutex(uint32_t node_count, Duration ttl);

// RedMutex (ttl 3 s): lock() polls try_lock (one attempt, a fresh id each time) with uniform
// [0, 5] ms sleeps until it wins; the LockWatcher extends every ttl/2 and on failure calls the
// error callback and marks the mutex unlocked (tells the holder) and stops.
RedlockOptions redis_plus_plus_red_mutex(uint32_t node_count, Duration ttl);
WatchdogOptions redis_plus_plus_lock_watcher(Duration ttl);

// RedMutexOptions{scripting = false} (RedMutexTx): validity ttl - elapsed with no drift; a failed
// try calls unlock with the key name as the token, a no-op, so minority keys stay; extend is
// WATCH/GET/MULTI PEXPIRE per node and counts a key that is missing or not ours as extended
// (code reading, bug list items 6 and 22).
RedlockOptions redis_plus_plus_tx(RedlockOptions scripted);

}  // namespace redlock_sim::profiles
