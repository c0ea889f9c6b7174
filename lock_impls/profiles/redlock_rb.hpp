// Profile: leandromoreira/redlock-rb 2.x (f176e57, 2023-10-30).
// Library bugs B8 (redlock-rb #36) and B13 (docs/catalogue.md).
#pragma once

#include "lock_impls/families/redlock.hpp"

namespace redlock_sim::profiles {

// retry_count 3 (4 tries), delay 200 ms plus a random 0-49 ms, drift int(ttl*0.01)+2,
// CLOCK_MONOTONIC, redis_timeout 0.1 s per server, a new uuid for every try, servers tried in
// turn with the "SET PX if absent or ours" script by EVALSHA; success iff a quorum and validity >=
// 0 (note >=); failure unlocks everywhere. Extend = the same script with the same value, one try,
// and by default allowed to re-create an absent key (extend_only_if_locked is opt-in); a failed
// extend unlocks all. Release: best effort on every server, no quorum.
RedlockOptions redlock_rb(uint32_t node_count, Duration ttl);

}  // namespace redlock_sim::profiles
