// Profile: SPSCommerce/redlock-py (42ef491, 2016-03-08, unmaintained).
// Library bugs B14, B20, B22, B24 (docs/catalogue.md).
#pragma once

#include "lock_impls/families/redlock.hpp"

namespace redlock_sim::profiles {

// retry_count 3 (0 falls back to 3), fixed retry_delay 0.2 s with no jitter and a sleep after
// the last try too; 22 alphanumeric characters; start and end read with int(time.time()*1000),
// the wall clock in whole ms; SET NX PX sent to each server in turn with no socket timeout
// (modelled as 1 h); drift int(ttl*0.01)+2; success iff validity > 0 and a quorum. A quorum
// reached while some server raised an error raises MultipleRedlockException without releasing.
// Release on every server in turn, no quorum. No extend.
RedlockOptions redlock_py(uint32_t node_count, Duration ttl);

}  // namespace redlock_sim::profiles
