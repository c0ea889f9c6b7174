#include "sim/explore/explore.hpp"

#include <algorithm>
#include <set>

namespace redlock_sim {

Scenario scenario_for_seed(const Scenario& base, uint64_t seed, const ExploreConfig& config) {
  const FaultPlan plan = draw_fault_plan(base, seed, config.classes, config.bounds);
  Scenario scenario = apply_fault_plan(base, plan, seed);
  scenario.expect = Expectations{};
  return scenario;
}

SeedOutcome explore_seed(const Scenario& base, uint64_t seed, const ExploreConfig& config,
                         const LockFactory& factory) {
  SeedOutcome outcome;
  outcome.seed = seed;
  outcome.plan = draw_fault_plan(base, seed, config.classes, config.bounds);
  Scenario scenario = apply_fault_plan(base, outcome.plan, seed);
  scenario.expect = Expectations{};
  // Exploration runs many seeds: keep no trace records, only the digest.
  const ScenarioResult result =
      run_scenario(scenario, factory,
                   RunOptions{.trace_records_max = 0, .record_story = false, .track_keys = false});
  outcome.mutual_exclusion = result.mutual_exclusion;
  outcome.resource_safety = result.resource_safety;
  outcome.liveness = result.liveness;
  outcome.events = result.stats.events;
  outcome.simulated_ms = result.stats.simulated_ms;
  outcome.grants = result.stats.grants;
  outcome.limit_hit = result.stats.limit_hit;
  for (const std::string& checker : config.checkers) {
    if (verdict_of(result, checker) == Verdict::violated) outcome.violated.push_back(checker);
  }
  return outcome;
}

std::string violation_signature(const Scenario& base, const SeedOutcome& outcome,
                                const std::string& checker) {
  std::set<std::string> profiles;
  for (const ClientSpec& client : base.clients)
    profiles.insert(client.profile);
  std::string signature = checker + " |";
  for (const std::string& profile : profiles)
    signature += " " + profile;
  signature += " |";
  for (FaultClass c : outcome.plan.classes_on)
    signature += std::string(" ") + fault_class_name(c);
  if (outcome.plan.classes_on.empty()) signature += " no-faults";
  return signature;
}

std::vector<Finding> collect_findings(const Scenario& base,
                                      const std::vector<SeedOutcome>& outcomes) {
  std::vector<Finding> findings;
  std::map<std::string, std::size_t> index;
  for (const SeedOutcome& outcome : outcomes) {
    for (const std::string& checker : outcome.violated) {
      const std::string signature = violation_signature(base, outcome, checker);
      auto [it, inserted] = index.emplace(signature, findings.size());
      if (inserted) {
        findings.push_back(Finding{.signature = signature,
                                   .checker = checker,
                                   .first_seed = outcome.seed,
                                   .occurrences = 0});
      }
      ++findings[it->second].occurrences;
    }
  }
  return findings;
}

}  // namespace redlock_sim
