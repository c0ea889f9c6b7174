// Profile: redis/redis-py Lock (34817ce2, 2026-08-07), redis/lock.py.
// Library bugs B10, B12, B26 (docs/catalogue.md).
#pragma once

#include "lock_impls/families/single_instance.hpp"

namespace redlock_sim::profiles {

// Lock(timeout=None, sleep=0.1, blocking=True): uuid1 hex token; SET NX PX timeout, and with
// the default timeout=None no expiry at all; blocking polls every 0.1 s with no jitter, without
// a bound by default; computes no validity (the caller holds until release); release by the
// compare-and-delete script (0/1); extend ADDS to the remaining PTTL by default.
SingleInstanceOptions redis_py_lock(Duration timeout);

}  // namespace redlock_sim::profiles
