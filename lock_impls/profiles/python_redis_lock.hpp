// Profile: ionelmc/python-redis-lock 4.0.1 (e448f12, 2026-04-09).
// Library bugs B7, B26 (docs/catalogue.md).
#pragma once

#include "lock_impls/families/single_instance.hpp"
#include "lock_impls/families/watchdog.hpp"

namespace redlock_sim::profiles {

// Lock(expire=None): key "lock:<name>", b64(urandom(18)) id; SET NX EX expire (seconds), and
// with the default expire=None no expiry; waiting is BLPOP on the signal list (modelled as a
// wait of python_redis_lock_wait); release: the compare-delete-and-signal script; extend: EXPIRE in
// seconds while ours (2 when the key has no TTL).
SingleInstanceOptions python_redis_lock(Duration expire);

// acquire(blocking=True, timeout=None) waits on the signal list with `BLPOP lock-signal:<name>
// expire` (0, for ever, when the lock has no expire) and tries again, for ever; the driver's
// mapping of retry_count: 0 is acquire(blocking=False) (one try), N > 0 is timeout = N x expire
// seconds (N when no expire): BLPOP for that long, then one last try. Sets o's wait from its ttl
// and retry_count (after the overrides).
void python_redis_lock_wait(SingleInstanceOptions& o);

// auto_renewal=True: a thread extends every expire*2/3; an extend that raises NotAcquired kills
// the thread silently: the holder is not told.
WatchdogOptions python_redis_lock_renewal(Duration expire);

}  // namespace redlock_sim::profiles
