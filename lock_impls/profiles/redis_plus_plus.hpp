// Profiles: sewenew/redis-plus-plus RedLockMutex and RedMutex (2c47000, 2026-01-20),
// src/sw/redis++/patterns/redlock.{h,cpp}. lock_libraries.md section 9; bug list items 7, 13,
// 19, 20, 22, 24.
#pragma once

#include "lock_impls/families/redlock.hpp"
#include "lock_impls/families/watchdog.hpp"

namespace redlock_sim::profiles {

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
