// Scenario -> JSON text in the scenario format, writing only what differs from the defaults.
// Shrunk counterexamples are saved with it; parse(write(s)) describes the same scenario
// (tested on every file in scenarios/).
#pragma once

#include <string>

#include "sim/scenario/scenario.hpp"

namespace redlock_sim {

std::string write_scenario(const Scenario& scenario);
// One fault as its `faults[i]` object, compact ({"at_ms":5,"delta_ms":3,...}).
std::string write_fault(const FaultSpec& fault);

}  // namespace redlock_sim
