// The story of a violation, shared by the terminal summary and the HTML report: which lines of a
// run's story explain it (the faults before it, the grants and writes of the clients involved).
#pragma once

#include <vector>

#include "sim/runner/runner.hpp"

namespace redlock_sim {

// The story events that tell how `violation` came about, in true-time order: the faults, and
// the grants and writes of the clients involved. With `grant_owners`, also the grants of the
// clients that own the violation's grants (a stale write's newer grant).
std::vector<const StoryEvent*> violation_story_events(const ScenarioResult& result,
                                                      const Violation& violation,
                                                      bool grant_owners = false);

}  // namespace redlock_sim
