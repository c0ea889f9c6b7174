// Exploration: run a base scenario under many swarm fault plans, one seed each, and collect the
// distinct violations (by signature: checker, lock profiles, fault classes on). Single-threaded
// and deterministic per seed; the CLI runs seeds on several threads and merges in seed order.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "sim/explore/fault_plan.hpp"
#include "sim/explore/shrink.hpp"
#include "sim/runner/runner.hpp"

namespace redlock_sim {

struct ExploreConfig {
  std::vector<FaultClass> classes = all_fault_classes();
  ExploreBounds bounds;
  // Which checkers count as a finding.
  std::vector<std::string> checkers = {"mutual_exclusion", "resource_safety", "liveness"};
};

struct SeedOutcome {
  uint64_t seed = 0;
  FaultPlan plan;
  Verdict mutual_exclusion = Verdict::not_checked;
  Verdict resource_safety = Verdict::not_checked;
  Verdict liveness = Verdict::not_checked;
  std::vector<std::string> violated;  // checkers from the config that were violated
  uint64_t events = 0;
  int64_t simulated_ms = 0;
  uint64_t grants = 0;
  bool limit_hit = false;
};

SeedOutcome explore_seed(const Scenario& base, uint64_t seed, const ExploreConfig& config,
                         const LockFactory& factory);

// "checker | profiles | classes": what makes two violations the same finding.
std::string violation_signature(const Scenario& base, const SeedOutcome& outcome,
                                const std::string& checker);

struct Finding {
  std::string signature;
  std::string checker;
  uint64_t first_seed = 0;
  uint64_t occurrences = 0;
};

// Groups outcomes (in seed order) into findings, first seed first.
std::vector<Finding> collect_findings(const Scenario& base,
                                      const std::vector<SeedOutcome>& outcomes);

// The scenario that reproduces one seed's run: the base plus that seed's faults.
Scenario scenario_for_seed(const Scenario& base, uint64_t seed, const ExploreConfig& config);

}  // namespace redlock_sim
