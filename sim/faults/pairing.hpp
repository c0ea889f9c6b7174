// Which partition a heal ends, in one place for the parser, the runner, the real harness and the
// shrinker: a heal ends the latest partition listed before it with the same name. (A partition
// without a name can only end at its `until_ms`.)
#pragma once

#include <cstddef>
#include <optional>
#include <vector>

#include "sim/scenario/scenario.hpp"

namespace redlock_sim {

// The index in `faults` of the partition that `faults[heal]` ends, or nothing (no earlier
// partition has its name: the parser refuses such a file, and a reduction drops such a heal).
std::optional<std::size_t> healed_partition(const std::vector<FaultSpec>& faults, std::size_t heal);

// Drops every heal that ends no partition (after a reduction removed or emptied its partition).
void drop_orphan_heals(std::vector<FaultSpec>& faults);

// Removes `faults[index]` and, when it is a partition, the heals that end it.
void remove_fault(std::vector<FaultSpec>& faults, std::size_t index);

}  // namespace redlock_sim
