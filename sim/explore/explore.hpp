// Exploration: run a base scenario under many swarm fault plans, one seed each, and collect the
// distinct violations (by signature: checker, lock profiles, fault classes involved). Each
// violation's involved classes are found by dropping whole classes from its plan while the
// checker still fails, so a swarm that turned eight classes on for a GC-pause bug files it under
// "client-pause" alone. Single-threaded and deterministic per seed; the CLI runs seeds on several
// threads and merges in seed order.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "sim/checkers/checkers.hpp"
#include "sim/explore/fault_plan.hpp"
#include "sim/explore/shrink.hpp"
#include "sim/runner/runner.hpp"

namespace redlock_sim {

struct ExploreConfig {
  std::vector<FaultClass> classes = all_fault_classes();
  ExploreBounds bounds;
  // Which checkers count as a finding.
  std::vector<std::string> checkers = checker_names();
};

// One violated checker of one seed, and the fault classes it needs: a 1-minimal subset of the
// classes the plan turned on (dropping any one more class's faults makes the checker hold).
struct AttributedViolation {
  std::string checker;
  std::vector<FaultClass> involved;  // in class order; empty: the base scenario fails alone
};

struct SeedOutcome {
  uint64_t seed = 0;
  FaultPlan plan;
  Verdict mutual_exclusion = Verdict::not_checked;
  Verdict resource_safety = Verdict::not_checked;
  Verdict liveness = Verdict::not_checked;
  std::vector<std::string> violated;  // checkers from the config that were violated
  std::vector<AttributedViolation>
      violations;       // parallel to `violated` when classes were attributed
  uint64_t events = 0;  // of the seed's run (attribution runs not counted)
  uint32_t attribution_runs = 0;
  uint64_t attribution_events = 0;
  int64_t simulated_ms = 0;
  uint64_t grants = 0;
  bool limit_hit = false;
};

// Runs one seed. With `attribute`, each violation gets its involved classes (extra runs that
// drop classes, repeated until nothing drops); without, every class the plan turned on.
SeedOutcome explore_seed(const Scenario& base, uint64_t seed, const ExploreConfig& config,
                         const LockFactory& factory, bool attribute = false);

// The plan with every fault of the classes not in `keep` removed.
FaultPlan restrict_plan(const FaultPlan& plan, const std::vector<FaultClass>& keep);

// "checker | profiles | classes": what makes two violations the same finding.
std::string violation_signature(const Scenario& base, const AttributedViolation& violation);

struct Finding {
  std::string signature;
  std::string checker;
  std::vector<FaultClass> involved;
  uint64_t first_seed = 0;
  uint64_t occurrences = 0;
};

// Groups attributed outcomes (in seed order) into findings, first seed first.
std::vector<Finding> collect_findings(const Scenario& base,
                                      const std::vector<SeedOutcome>& outcomes);

// The findings to shrink, at most `shrink_max`, in the order to shrink them: the distinct ones
// first, then those that repeat earlier ones, each group in finding order. A finding repeats
// earlier ones when an earlier finding has its checker and every fault class it involves is
// involved in an earlier finding of its checker (it combines causes already found); a shrink
// budget spent on those would leave a finding of a new class unshrunk.
std::vector<std::size_t> shrink_order(const std::vector<Finding>& findings, std::size_t shrink_max);

// The scenario that reproduces one seed's run: the base plus that seed's faults (only those of
// the `involved` classes when given).
Scenario scenario_for_seed(const Scenario& base, uint64_t seed, const ExploreConfig& config);
Scenario scenario_for_seed(const Scenario& base, uint64_t seed, const ExploreConfig& config,
                           const std::vector<FaultClass>& involved);

}  // namespace redlock_sim
