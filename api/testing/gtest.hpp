// GoogleTest helper: "my lock keeps mutual exclusion under these fault classes" as one line,
//
//   EXPECT_TRUE(redlock_sim::gtest::keeps("my.json", "mutual_exclusion", {"client-pause"}));
//
// It explores the scenario under the named fault classes (all on in every seed, as a matrix
// column) for `seeds` seeds; on a violation the failure message carries the finding, its first
// seed and the shrunk counterexample as a scenario file to paste and run. Link
// redlock_sim::testing (it brings GoogleTest when the project has it).
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "api/embed.hpp"

namespace redlock_sim::gtest {

struct Claim {
  uint64_t seeds = 50;
  uint64_t seed_start = 1;
  uint32_t faults_per_class_max = 2;
  uint32_t shrink_runs_max = 400;
};

inline ::testing::AssertionResult keeps(const std::string& scenario_file,
                                        const std::string& checker,
                                        const std::vector<std::string>& fault_classes,
                                        const Claim& claim = {}) {
  Scenario base;
  try {
    base = load_scenario_file(scenario_file);
  } catch (const std::exception& error) {
    return ::testing::AssertionFailure() << error.what();
  }
  ExploreOptions options{.seeds = {.start = claim.seed_start, .count = claim.seeds},
                         .shrink_max = 1,
                         .shrink_runs_max = claim.shrink_runs_max};
  options.config.checkers = {checker};
  options.config.classes.clear();
  for (const std::string& name : fault_classes) {
    const auto fault_class = parse_fault_class(name);
    if (!fault_class) return ::testing::AssertionFailure() << "unknown fault class " << name;
    options.config.classes.push_back(*fault_class);
  }
  // Every named class on in every seed, as a matrix column.
  options.config.bounds.on_numerator = 1;
  options.config.bounds.on_denominator = 1;
  options.config.bounds.faults_per_class_max = claim.faults_per_class_max;
  const ExploreReport report = explore(base, options);
  if (report.findings.empty()) {
    return ::testing::AssertionSuccess()
           << checker << " holds in " << report.explored.seeds << " seeds of " << base.name;
  }
  const Finding& finding = report.findings.front();
  ::testing::AssertionResult failure = ::testing::AssertionFailure();
  failure << checker << " violated: " << finding.signature << ", " << finding.occurrences
          << " seed(s) of " << report.explored.seeds << ", first at seed " << finding.first_seed;
  if (!report.shrunk.empty()) {
    failure << "; shrunk counterexample (" << report.shrunk.front().shrunk.runs << " runs):\n"
            << write_scenario(report.shrunk.front().shrunk.scenario);
  }
  return failure;
}

}  // namespace redlock_sim::gtest
