// Wires the lock registry (lock_impls/) into the parser's profile check and the runner's lock
// factory; the embedding API (and the CLI through it) is the only place that sees both sides.
// This file is the one adapter between the registry's entry points and everything that runs locks.
#pragma once

#include <memory>
#include <string>

#include "lock_impls/registry.hpp"
#include "scenarios/parser.hpp"
#include "sim/runner/runner.hpp"

namespace redlock_sim {

// An embedding program registers its own lock with the registry's `register_lock(LockEntry)`
// (lock_impls/registry.hpp): its name, description, typed parameter table and constructor.

ProfileCheck registry_profile_check();
LockFactory registry_lock_factory();

// Whether the lock takes the parameter `key`.
bool accepts(const LockEntry& entry, const std::string& key);
// The scenario with every client running `entry` instead: the node lists and workloads stay;
// parameters the lock does not take are dropped. Nothing (and `error`) when it cannot run there.
std::optional<Scenario> swap_lock(const Scenario& base, const LockEntry& entry, std::string& error);

}  // namespace redlock_sim
