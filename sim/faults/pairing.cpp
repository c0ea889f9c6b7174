#include "sim/faults/pairing.hpp"

namespace redlock_sim {

std::optional<std::size_t> healed_partition(const std::vector<FaultSpec>& faults,
                                            std::size_t heal) {
  const FaultSpec& h = faults.at(heal);
  if (h.kind != "heal" || h.name.empty()) return std::nullopt;
  for (std::size_t i = heal; i-- > 0;) {
    if (faults[i].kind == "partition" && faults[i].name == h.name) return i;
  }
  return std::nullopt;
}

void drop_orphan_heals(std::vector<FaultSpec>& faults) {
  std::vector<FaultSpec> kept;
  for (std::size_t i = 0; i < faults.size(); ++i) {
    if (faults[i].kind == "heal" && !healed_partition(faults, i)) continue;
    kept.push_back(faults[i]);
  }
  faults = std::move(kept);
}

void remove_fault(std::vector<FaultSpec>& faults, std::size_t index) {
  std::vector<FaultSpec> kept;
  for (std::size_t i = 0; i < faults.size(); ++i) {
    if (i == index) continue;
    if (faults[i].kind == "heal" && healed_partition(faults, i) == index) continue;
    kept.push_back(faults[i]);
  }
  faults = std::move(kept);
}

}  // namespace redlock_sim
