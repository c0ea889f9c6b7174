#include "sim/faults/before_run.hpp"

#include <algorithm>

#include "sim/faults/fault_kind.hpp"

namespace redlock_sim {

bool may_start_before_run(FaultKind kind) {
  return fault_kind(kind).may_start_before_run;
}

namespace {
bool contains(const std::vector<std::string>& names, const std::string& name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

// A cut separates `a` and `b` when they are on opposite sides, whatever the direction: a
// replication link is one TCP connection, lost when either direction is.
bool separates(const FaultSpec& cut, const std::string& a, const std::string& b) {
  return (contains(cut.side_a, a) && contains(cut.side_b, b)) ||
         (contains(cut.side_a, b) && contains(cut.side_b, a));
}
}  // namespace

std::map<std::string, int64_t> replica_links_down_before_run(const Scenario& scenario) {
  std::map<std::string, int64_t> since;
  for (const FaultSpec& fault : scenario.faults) {
    if (fault.kind != FaultKind::partition || fault.at_ms >= 0) continue;
    if (fault.until_ms && *fault.until_ms <= 0) continue;  // healed by time zero
    for (const NodeSpec& node : scenario.nodes) {
      if (node.role != "replica" || !separates(fault, node.name, node.replica_of)) continue;
      const auto it = since.find(node.name);
      if (it == since.end() || fault.at_ms < it->second) since[node.name] = fault.at_ms;
    }
  }
  return since;
}

}  // namespace redlock_sim
