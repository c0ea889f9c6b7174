// Profiles: redisson/redisson RLock, RedissonRedLock and RFencedLock (66863978b, 2026-08-21).
// Library bugs B2, B4, B7, B9, B10, B29 (docs/catalogue.md).
#pragma once

#include "lock_impls/families/hash_lock.hpp"

namespace redlock_sim::profiles {

// RLock lock(): a hash field "<client uuid>:<thread id>" counting re-entries, lease
// lockWatchdogTimeout 30 s renewed every 10 s by a watchdog that drops a lost lock silently and
// keeps going after errors; the acquire script is batched with WAIT <replicas> 1000 and
// accepted when at least ONE replica acknowledged (the `syncedSlaves == 0` test), whatever the
// number of replicas; a busy lock is retried after the holder's PTTL; response timeout 3 s.
HashLockOptions redisson_rlock(uint32_t replicas);

// RFencedLock: RLock plus INCR of "redisson_lock_token:{name}" inside the acquire script on every
// grant, re-entries included; the token counter has no TTL and follows the master's failovers.
HashLockOptions redisson_fenced_lock(uint32_t replicas);

// RFencedLock.lockAndGetToken(leaseTime, unit) calls lockAndGetTokenAsync() and drops the lease
// (Redisson 4.7.0 and 66863978b, whatever the javadoc says): without a wait time (the lock path)
// a given lease_ms is ignored and the watchdog renews the 30 s lease for ever, while the caller,
// told the lock is released after leaseTime, believes it until then (promised_lease). With a wait
// time (tryLockAndGetToken(waitTime, leaseTime, unit)) the lease is honoured. Applied after the
// overrides.
void redisson_fenced_lock_lease(HashLockOptions& options);

}  // namespace redlock_sim::profiles
