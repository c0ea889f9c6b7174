// Shrinking a failing run to a minimal counterexample.
//
// Greedy, like a property tester's shrinker but on scenarios: try one reduction at a time (drop
// a fault, drop a client, drop a step, drop a node, shorten a pause or a clock step or a
// partition, move a fault or a step earlier), keep it if the run still violates the same
// checker, and start over; stop when no single reduction keeps the violation (1-minimal) or the
// run budget is spent. Deterministic: the same input gives the same shrunk scenario.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sim/runner/runner.hpp"

namespace redlock_sim {

struct ShrinkOptions {
  uint32_t runs_max = 2'000;  // every run counted: the first, the reductions tried, the final one
};

struct ShrinkResult {
  Scenario scenario;      // the smallest scenario found, expecting the violation
  ScenarioResult result;  // its run
  uint32_t runs = 0;
  uint32_t reductions = 0;  // reductions accepted
  bool minimal = false;     // no single reduction keeps the violation (not out of budget)
};

// The verdict of `checker` ("mutual_exclusion", "resource_safety" or "liveness") in a result.
Verdict verdict_of(const ScenarioResult& result, const std::string& checker);

ShrinkResult shrink_scenario(const Scenario& failing, const std::string& checker,
                             const LockFactory& factory, const ShrinkOptions& options = {});

// Every single reduction of a scenario, in the order the shrinker tries them (exposed for tests).
std::vector<Scenario> reductions_of(const Scenario& scenario);

}  // namespace redlock_sim
