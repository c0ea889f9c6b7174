// The registry-backed lock factory for tests that run scenarios (api/lock_wiring.cpp has the
// embedding API's, which also knows the locks a program registers).
#pragma once

#include "lock_impls/registry.hpp"
#include "sim/runner/runner.hpp"

namespace redlock_sim::testing {

inline LockFactory registry_factory() {
  return [](const ClientSpec& client, Port& port, std::string& error) {
    const auto node_count = static_cast<uint32_t>(client.nodes.size());
    MadeLock made = make_lock(client.profile, port, node_count, client.params);
    error = made.error;
    return std::move(made.client);
  };
}

}  // namespace redlock_sim::testing
