// Ways a scenario file can parse and still not be what its author meant: each is a warning (the
// run goes on; a file may mean it). docs/scenario-format.md lists them.
#pragma once

#include <string>
#include <vector>

#include "sim/scenario/scenario.hpp"

namespace redlock_sim {

// One sentence each, naming the field, in file order.
std::vector<std::string> scenario_warnings(const Scenario& scenario);

}  // namespace redlock_sim
