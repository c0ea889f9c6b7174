// Wires the lock registry (lock_impls/) into the parser's profile check and the runner's lock
// factory; the CLI is the only place that sees both sides.
#pragma once

#include "lock_impls/registry.hpp"
#include "scenarios/parser.hpp"
#include "sim/runner/runner.hpp"

namespace redlock_sim::cli {

ProfileCheck registry_profile_check();
LockFactory registry_lock_factory();

// Whether the lock takes the parameter `key`.
bool accepts(const LockEntry& entry, const std::string& key);
// The scenario with every client running `entry` instead: the node lists and workloads stay;
// parameters the lock does not take are dropped. Nothing (and `error`) when it cannot run there.
std::optional<Scenario> swap_lock(const Scenario& base, const LockEntry& entry, std::string& error);

}  // namespace redlock_sim::cli
