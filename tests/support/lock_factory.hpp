// The registry-backed lock factory for tests that run scenarios (api/lock_wiring.cpp has the
// embedding API's, which also knows the locks a program registers).
#pragma once

#include "lock_impls/registry.hpp"
#include "sim/runner/runner.hpp"

namespace redlock_sim::testing {

inline LockFactory registry_factory() {
  return [](const ClientSpec& client, Port& port, std::string& error) {
    LockParams params = client.params;
    const LockEntry* entry = find_lock_entry(client.profile);
    if (entry != nullptr && find_param(entry->params, "nodes") != nullptr) {
      params.emplace("nodes", static_cast<int64_t>(client.nodes.size()));
    }
    MadeLock made = make_lock(client.profile, port, params);
    error = made.error;
    return std::move(made.client);
  };
}

}  // namespace redlock_sim::testing
