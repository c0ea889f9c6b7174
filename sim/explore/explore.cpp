#include "sim/explore/explore.hpp"

#include <algorithm>
#include <set>

namespace redlock_sim {

namespace {

ScenarioResult run_plan(const Scenario& base, const FaultPlan& plan, uint64_t seed,
                        const LockFactory& factory) {
  Scenario scenario = apply_fault_plan(base, plan, seed);
  scenario.expect = Expectations{};
  // Exploration runs many seeds and reads only their verdicts and stats: no trace records and
  // no digest.
  return run_scenario(scenario, factory,
                      RunOptions{.trace_records_max = 0,
                                 .record_story = false,
                                 .track_keys = false,
                                 .digest_message_contents = false,
                                 .trace_digest = false});
}

bool contains(const std::vector<FaultClass>& classes, FaultClass c) {
  return std::find(classes.begin(), classes.end(), c) != classes.end();
}

// Greedy, in class order: drop a class for good when the checker still fails without it (and
// the run stays within its limits, as the shrinker demands), then go over the classes left
// again, until a whole pass drops nothing. Dropping faults changes what the others need, so one
// pass is not enough (10 of 194 violations of redlock-workload's first 2000 seeds kept a class
// they did not need). The result is 1-minimal: without any one class left, the checker holds.
AttributedViolation attribute(const Scenario& base, const FaultPlan& plan, uint64_t seed,
                              const std::string& checker, const LockFactory& factory,
                              SeedOutcome& outcome) {
  AttributedViolation violation{.checker = checker, .involved = plan.classes_on};
  std::set<std::vector<FaultClass>> holds;  // class sets already seen not to violate
  bool dropped = true;
  while (dropped) {
    dropped = false;
    const std::vector<FaultClass> candidates = violation.involved;
    for (FaultClass candidate : candidates) {
      std::vector<FaultClass> without;
      for (FaultClass c : violation.involved) {
        if (c != candidate) without.push_back(c);
      }
      if (without.size() == violation.involved.size() || holds.count(without)) continue;
      const ScenarioResult result = run_plan(base, restrict_plan(plan, without), seed, factory);
      ++outcome.attribution_runs;
      outcome.attribution_events += result.stats.events;
      if (verdict_of(result, checker) == Verdict::violated && !result.stats.limit_hit) {
        violation.involved = std::move(without);
        dropped = true;
      } else {
        holds.insert(std::move(without));
      }
    }
  }
  return violation;
}

}  // namespace

FaultPlan restrict_plan(const FaultPlan& plan, const std::vector<FaultClass>& keep) {
  FaultPlan out;
  for (FaultClass c : plan.classes_on) {
    if (contains(keep, c)) out.classes_on.push_back(c);
  }
  for (std::size_t i = 0; i < plan.faults.size(); ++i) {
    if (!contains(keep, plan.fault_classes[i])) continue;
    out.faults.push_back(plan.faults[i]);
    out.fault_classes.push_back(plan.fault_classes[i]);
  }
  return out;
}

Scenario scenario_for_seed(const Scenario& base, uint64_t seed, const ExploreConfig& config) {
  const FaultPlan plan = draw_fault_plan(base, seed, config.classes, config.bounds);
  return scenario_for_seed(base, seed, config, plan.classes_on);
}

Scenario scenario_for_seed(const Scenario& base, uint64_t seed, const ExploreConfig& config,
                           const std::vector<FaultClass>& involved) {
  const FaultPlan plan = draw_fault_plan(base, seed, config.classes, config.bounds);
  Scenario scenario = apply_fault_plan(base, restrict_plan(plan, involved), seed);
  scenario.expect = Expectations{};
  return scenario;
}

SeedOutcome explore_seed(const Scenario& base, uint64_t seed, const ExploreConfig& config,
                         const LockFactory& factory, bool attribute_classes) {
  SeedOutcome outcome;
  outcome.seed = seed;
  outcome.plan = draw_fault_plan(base, seed, config.classes, config.bounds);
  const ScenarioResult result = run_plan(base, outcome.plan, seed, factory);
  outcome.mutual_exclusion = result.mutual_exclusion;
  outcome.resource_safety = result.resource_safety;
  outcome.liveness = result.liveness;
  outcome.events = result.stats.events;
  outcome.simulated_ms = result.stats.simulated_ms;
  outcome.grants = result.stats.grants;
  outcome.limit_hit = result.stats.limit_hit;
  for (const std::string& checker : config.checkers) {
    if (verdict_of(result, checker) != Verdict::violated) continue;
    outcome.violated.push_back(checker);
    outcome.violations.push_back(
        attribute_classes
            ? attribute(base, outcome.plan, seed, checker, factory, outcome)
            : AttributedViolation{.checker = checker, .involved = outcome.plan.classes_on});
  }
  return outcome;
}

std::string violation_signature(const Scenario& base, const AttributedViolation& violation) {
  std::set<std::string> profiles;
  for (const ClientSpec& client : base.clients)
    profiles.insert(client.profile);
  std::string signature = violation.checker + " |";
  for (const std::string& profile : profiles)
    signature += " " + profile;
  signature += " |";
  for (FaultClass c : violation.involved)
    signature += std::string(" ") + fault_class_name(c);
  if (violation.involved.empty()) signature += " no-faults";
  return signature;
}

std::vector<Finding> collect_findings(const Scenario& base,
                                      const std::vector<SeedOutcome>& outcomes) {
  std::vector<Finding> findings;
  std::map<std::string, std::size_t> index;
  for (const SeedOutcome& outcome : outcomes) {
    for (const AttributedViolation& violation : outcome.violations) {
      const std::string signature = violation_signature(base, violation);
      auto [it, inserted] = index.emplace(signature, findings.size());
      if (inserted) {
        findings.push_back(Finding{.signature = signature,
                                   .checker = violation.checker,
                                   .involved = violation.involved,
                                   .first_seed = outcome.seed,
                                   .occurrences = 0});
      }
      ++findings[it->second].occurrences;
    }
  }
  return findings;
}

std::vector<std::size_t> shrink_order(const std::vector<Finding>& findings,
                                      std::size_t shrink_max) {
  std::vector<std::size_t> distinct;
  std::vector<std::size_t> repeats;
  std::map<std::string, std::set<FaultClass>> classes_of_checker;
  for (std::size_t i = 0; i < findings.size(); ++i) {
    const Finding& f = findings[i];
    const auto known = classes_of_checker.find(f.checker);
    bool repeat = known != classes_of_checker.end();
    for (FaultClass c : f.involved)
      repeat = repeat && known->second.count(c) != 0;
    (repeat ? repeats : distinct).push_back(i);
    classes_of_checker[f.checker].insert(f.involved.begin(), f.involved.end());
  }
  distinct.insert(distinct.end(), repeats.begin(), repeats.end());
  if (distinct.size() > shrink_max) distinct.resize(shrink_max);
  return distinct;
}

}  // namespace redlock_sim
