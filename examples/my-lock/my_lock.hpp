// "my-redlock": a Redlock of our own, written against redlock_sim's port like any lock of the
// simulator. SET NX PX on every node in parallel, a majority within the validity wins; on failure
// it releases everywhere and retries after a delay.
//
// The deliberate bug: release is a plain DEL, not "delete if the value is mine". A holder whose
// lease ran out while it was paused deletes the next holder's key on its way out, and a third
// client then gets the lock while the second still holds it.
#pragma once

#include <memory>
#include <string>

#include "api/lock_wiring.hpp"

namespace my_lock {

// Registers "my-redlock" with redlock_sim (call once, before loading scenarios that name it).
void register_my_redlock();

}  // namespace my_lock
