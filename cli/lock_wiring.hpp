// Wires the lock registry (lock_impls/) into the parser's profile check and the runner's lock
// factory; the CLI is the only place that sees both sides.
#pragma once

#include "scenarios/parser.hpp"
#include "sim/runner/runner.hpp"

namespace redlock_sim::cli {

ProfileCheck registry_profile_check();
LockFactory registry_lock_factory();

}  // namespace redlock_sim::cli
