// Scenario -> JSON text in the scenario format, writing only what differs from the defaults.
// Shrunk counterexamples are saved with it; parse(write(s)) describes the same scenario
// (tested on every file in scenarios/).
#pragma once

#include <string>

#include "sim/scenario/scenario.hpp"

namespace redlock_sim {

std::string write_scenario(const Scenario& scenario);

}  // namespace redlock_sim
