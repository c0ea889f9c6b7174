#include "sim/faults/before_run.hpp"

#include <algorithm>

#include "sim/faults/fault_kind.hpp"
#include "sim/faults/pairing.hpp"

namespace redlock_sim {

bool may_start_before_run(const std::string& kind) {
  return fault_kind(kind).may_start_before_run;
}

bool heals_cut_before_run_by_zero(const std::vector<FaultSpec>& faults, std::size_t index,
                                  int64_t at_ms) {
  const std::optional<std::size_t> cut = healed_partition(faults, index);
  return cut && faults[*cut].at_ms < 0 && at_ms <= 0;
}

namespace {
bool contains(const std::vector<std::string>& names, const std::string& name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

// Whether `cut` drops messages from `from` to `to` (side A to side B, and back unless one-way).
bool drops(const FaultSpec& cut, const std::string& from, const std::string& to) {
  if (contains(cut.side_a, from) && contains(cut.side_b, to)) return true;
  return !cut.one_way && contains(cut.side_a, to) && contains(cut.side_b, from);
}

void earliest(std::optional<int64_t>& since, int64_t at_ms) {
  if (!since || at_ms < *since) since = at_ms;
}
}  // namespace

std::map<std::string, ReplicaCutBeforeRun> replica_links_down_before_run(const Scenario& scenario) {
  std::map<std::string, ReplicaCutBeforeRun> cuts;
  for (const FaultSpec& fault : scenario.faults) {
    if (!may_start_before_run(fault.kind) || fault.at_ms >= 0) continue;
    if (fault.until_ms && *fault.until_ms <= 0) continue;  // the parser refuses it; healed anyway
    for (const NodeSpec& node : scenario.nodes) {
      if (node.role != "replica") continue;
      const bool from_master = drops(fault, node.replica_of, node.name);
      const bool to_master = drops(fault, node.name, node.replica_of);
      if (!from_master && !to_master) continue;
      ReplicaCutBeforeRun& cut = cuts[node.name];
      if (from_master) earliest(cut.from_master_ms, fault.at_ms);
      if (to_master) earliest(cut.to_master_ms, fault.at_ms);
    }
  }
  return cuts;
}

}  // namespace redlock_sim
