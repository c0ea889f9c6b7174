// Wires the lock registry (lock_impls/) into the parser's profile check and the runner's lock
// factory; the embedding API (and the CLI through it) is the only place that sees both sides.
// An embedding program's own locks are registered here too, beside the registry's: this file is
// the one adapter between the registry's entry points and everything that runs locks.
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "lock_impls/registry.hpp"
#include "scenarios/parser.hpp"
#include "sim/runner/runner.hpp"

namespace redlock_sim {

// A lock of the embedding program's own, written against the port like ours: `make` builds it
// bound to `port` with the scenario client's parameters (the node count included), or returns
// null and says why in `error` (an unknown or malformed parameter).
using LockMaker = std::function<std::unique_ptr<LockClient>(Port& port, const LockParams& params,
                                                            std::string& error)>;
// Registers `entry` (its name, description and the parameters it takes) with `make`. A name the
// registry or an earlier registration already has is refused (false). Register before running.
bool register_lock(LockEntry entry, LockMaker make);
// The entry of `name`: the embedding program's locks first, then the registry's.
const LockEntry* find_any_lock_entry(const std::string& name);

ProfileCheck registry_profile_check();
LockFactory registry_lock_factory();

// Whether the lock takes the parameter `key`.
bool accepts(const LockEntry& entry, const std::string& key);
// The scenario with every client running `entry` instead: the node lists and workloads stay;
// parameters the lock does not take are dropped. Nothing (and `error`) when it cannot run there.
std::optional<Scenario> swap_lock(const Scenario& base, const LockEntry& entry, std::string& error);

}  // namespace redlock_sim
