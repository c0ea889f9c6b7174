#include "api/lock_wiring.hpp"

#include <algorithm>

#include "lock_impls/registry.hpp"

namespace redlock_sim {

ProfileCheck registry_profile_check() {
  return [](const ClientSpec& client) -> std::optional<std::string> {
    const LockEntry* entry = find_lock_entry(client.profile);
    if (entry == nullptr) {
      return "unknown profile \"" + client.profile + "\" ('redlock-sim list' shows them)";
    }
    // The lock's parameter table checks names, types and ranges; nothing is built.
    if (auto error = check_params(entry->params, client.params)) {
      return "profile \"" + client.profile + "\": " + *error;
    }
    return std::nullopt;
  };
}

LockFactory registry_lock_factory() {
  return
      [](const ClientSpec& client, Port& port, std::string& error) -> std::unique_ptr<LockClient> {
        const LockEntry* entry = find_lock_entry(client.profile);
        if (entry == nullptr) {
          error = "unknown profile " + client.profile;
          return nullptr;
        }
        // The lock learns its nodes from the client's list: port node i is nodes[i].
        const auto node_count = static_cast<uint32_t>(client.nodes.size());
        MadeLock made = make_lock(client.profile, port, node_count, client.params);
        error = made.error;
        return std::move(made.client);
      };
}

bool accepts(const LockEntry& entry, const std::string& key) {
  return find_param(entry.params, key) != nullptr;
}

std::optional<Scenario> swap_lock(const Scenario& base, const LockEntry& entry,
                                  std::string& error) {
  Scenario swapped = base;
  swapped.name = base.name + "-" + entry.name;
  for (ClientSpec& client : swapped.clients) {
    client.profile = entry.name;
    LockParams kept;
    for (const auto& [key, value] : client.params) {
      if (accepts(entry, key)) kept[key] = value;
    }
    client.params = kept;
    // A lock that waits for replica acknowledgements is told how many replicas there are (a
    // story with none would otherwise fail every acquisition on a missing WAIT ack).
    if (accepts(entry, "replicas") && client.params.count("replicas") == 0) {
      const auto replicas = std::count_if(base.nodes.begin(), base.nodes.end(),
                                          [](const NodeSpec& n) { return n.role == "replica"; });
      client.params["replicas"] = static_cast<int64_t>(replicas);
    }
    if (auto problem = registry_profile_check()(client)) {
      error = "client " + client.name + ": " + *problem;
      return std::nullopt;
    }
  }
  return swapped;
}

}  // namespace redlock_sim
