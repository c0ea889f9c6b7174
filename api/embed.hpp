// The embedding API in one include (docs/embedding.md): a program registers its own locks
// (register_lock), then loads, runs, explores and builds matrix rows with them, and renders
// results as text, JSON and HTML, exactly as `redlock-sim` does (the CLI is a user of these).
#pragma once

#include <string>

#include "api/exploration.hpp"
#include "api/lock_wiring.hpp"
#include "api/matrix_rows.hpp"
#include "reports/html_report.hpp"
#include "reports/result_json.hpp"
#include "reports/text_report.hpp"
#include "scenarios/parser.hpp"
#include "scenarios/writer.hpp"

namespace redlock_sim {

// A scenario file, its clients' locks checked against the registry and the registered locks.
// Throws ScenarioError (file, JSON path, what was expected) on bad input.
inline Scenario load_scenario_file(const std::string& path) {
  return parse_scenario_file(path, registry_profile_check());
}

// One run of a scenario with the registry's and the registered locks.
inline ScenarioResult run(const Scenario& scenario, const RunOptions& options = {}) {
  return run_scenario(scenario, registry_lock_factory(), options);
}

// Explore with shrinking (api/exploration.hpp) with the registry's and the registered locks.
inline ExploreReport explore(const Scenario& base, const ExploreOptions& options = {}) {
  return explore(base, registry_lock_factory(), options);
}

}  // namespace redlock_sim
