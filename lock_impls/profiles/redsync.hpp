// Profile: go-redsync/redsync v4 (snapshot 5560bd2, 2026-07-23).
// docs/lock-clients.md.
#pragma once

#include "lock_impls/families/redlock.hpp"

namespace redlock_sim::profiles {

// NewMutex defaults: expiry 8 s, 32 tries, delay uniform [50, 250) ms, drift factor 0.01 with no
// +2 ms, one 16-byte base64 value for every try, parallel SET NX PX waiting for every pool,
// per-attempt context timeout expiry * 0.05 (honoured here as a per-request timeout), release on
// all pools after each failed try under the same timeout, Go's monotonic clock. Extend:
// compare-and-PEXPIRE (a reset) on all pools, needs a quorum, recomputes `until` from its own
// start, no local pre-check. Release: quorum of the delete script, no timeout (modelled as 1 h).
RedlockOptions redsync_v4(uint32_t node_count);

// WithFailFast: return as soon as a quorum is reached (or cannot be).
RedlockOptions redsync_v4_fail_fast(uint32_t node_count);

}  // namespace redlock_sim::profiles
