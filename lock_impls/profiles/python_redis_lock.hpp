// Profile: ionelmc/python-redis-lock 4.0.1 (e448f12, 2026-04-09).
// lock_libraries.md section 6; bug list items 7 and 26.
#pragma once

#include "lock_impls/families/single_instance.hpp"
#include "lock_impls/families/watchdog.hpp"

namespace redlock_sim::profiles {

// Lock(expire=None): key "lock:<name>", b64(urandom(18)) id; SET NX EX expire (seconds), and
// with the default expire=None no expiry; waiting is BLPOP on the signal list (modelled as a
// poll every `expire` or 1 s); release: the compare-delete-and-signal script; extend: EXPIRE in
// seconds while ours (2 when the key has no TTL).
SingleInstanceOptions python_redis_lock(Duration expire);

// auto_renewal=True: a thread extends every expire*2/3; an extend that raises NotAcquired kills
// the thread silently: the holder is not told.
WatchdogOptions python_redis_lock_renewal(Duration expire);

}  // namespace redlock_sim::profiles
