// RapidCheck helper: "my lock keeps mutual exclusion under these fault classes" as one property
// line,
//
//   EXPECT_TRUE(rc::check("my-redlock keeps mutual exclusion under client pauses",
//       redlock_sim::rapidcheck::keeps("my.json", "mutual_exclusion", {"client-pause"})));
//
// or, inside a property of one's own (RC_GTEST_PROP, rc::check),
//
//   redlock_sim::rapidcheck::assert_keeps(base, "mutual_exclusion", {FaultClass::client_pause});
//
// Each case draws a seed; the explorer's planner turns it into a fault plan with every named
// class on (as a matrix column), and the run's verdict of the checker must not be "violated".
// RapidCheck does not shrink the seed (a neighbouring seed is an unrelated plan); a failing case
// is shrunk once by the explorer's shrinker (drops, shortens and moves faults, drops clients),
// written as a counterexample (scenario, result, story, HTML) and reported with its shrunk fault
// plan and the line that reproduces it. Link redlock_sim::testing (it brings RapidCheck when the
// project has it).
#pragma once

#include <rapidcheck.h>

#include <algorithm>
#include <cstdint>
#include <exception>
#include <filesystem>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

#include "api/embed.hpp"

namespace redlock_sim::rapidcheck {

struct Claim {
  uint32_t faults_per_class_max = 2;
  uint32_t shrink_runs_max = 400;
  // Where a counterexample is written; empty: redlock-sim-rapidcheck/ in the system's temp dir.
  std::string out_dir;
  // The reproduce line's program: `redlock-sim` knows our locks; a program that registers its
  // own lock and replays a file (examples/my-lock's my-lock-check) reproduces a user's lock.
  std::string program = "redlock-sim";
};

// The explorer's configuration for a claim: only `checker` counts, every class on in every seed.
inline ExploreConfig claim_config(const std::string& checker,
                                  const std::vector<FaultClass>& classes, const Claim& claim) {
  ExploreConfig config;
  config.checkers = {checker};
  config.classes = classes;
  config.bounds.on_numerator = 1;
  config.bounds.on_denominator = 1;
  config.bounds.faults_per_class_max = claim.faults_per_class_max;
  return config;
}

// What a failing case reports: the violation, the shrunk fault plan and the reproduce line.
inline std::string counterexample_message(const Scenario& base, uint64_t seed,
                                          const std::string& checker, std::size_t faults_before,
                                          ShrinkResult& shrunk, const Claim& claim) {
  std::ostringstream message;
  message << checker << " violated by " << base.name << " at seed " << seed << " (" << faults_before
          << " fault(s)); shrunk in " << shrunk.runs << " runs to " << shrunk.scenario.faults.size()
          << " fault(s), " << shrunk.scenario.clients.size() << " client(s), "
          << shrunk.scenario.nodes.size() << " node(s)"
          << (shrunk.minimal ? "" : " (run budget spent)") << ":\n"
          << faults_text(shrunk.scenario);
  const std::string dir =
      claim.out_dir.empty()
          ? (std::filesystem::temp_directory_path() / "redlock-sim-rapidcheck").string()
          : claim.out_dir;
  std::error_code error;
  std::filesystem::create_directories(dir, error);
  const std::string stem = shrunk.scenario.name;
  if (!error &&
      write_counterexample(shrunk.scenario, dir, stem, registry_lock_factory(), claim.program)) {
    message << "reproduce: " << reproduce_command(claim.program, dir, stem) << "\n";
  } else {
    message << "(cannot write the counterexample to " << dir << ")\n"
            << write_scenario(shrunk.scenario);
  }
  return message.str();
}

// One case of the property: call it inside a RapidCheck property. Draws a seed (no shrinking),
// runs that seed's plan and fails (RC_FAIL) with the shrunk counterexample on a violation.
inline void assert_keeps(const Scenario& base, const std::string& checker,
                         const std::vector<FaultClass>& classes, const Claim& claim = {}) {
  const uint64_t seed = *::rc::gen::noShrink(::rc::gen::inRange<uint64_t>(1, uint64_t{1} << 62));
  const ExploreConfig config = claim_config(checker, classes, claim);
  const Scenario faulted = scenario_for_seed(base, seed, config);
  const ScenarioResult result =
      run_scenario(faulted, registry_lock_factory(),
                   RunOptions{.trace_records_max = 0, .record_story = false, .track_keys = false});
  if (verdict_of(result, checker) != Verdict::violated) return;
  ShrinkResult shrunk = shrink_seed(base, seed, config, checker, claim.shrink_runs_max,
                                    registry_lock_factory(), "redlock_sim::rapidcheck");
  RC_FAIL(counterexample_message(base, seed, checker, faulted.faults.size(), shrunk, claim));
}

// The whole property, for rc::check: the scenario file is loaded and the class names checked
// once; a bad file, checker or class name fails every case with one clear message.
inline std::function<void()> keeps(const std::string& scenario_file, const std::string& checker,
                                   const std::vector<std::string>& fault_classes,
                                   const Claim& claim = {}) {
  const auto failing = [](std::string message) {
    return std::function<void()>([message] { RC_FAIL(message); });
  };
  const std::vector<std::string>& checkers = checker_names();
  if (std::find(checkers.begin(), checkers.end(), checker) == checkers.end()) {
    return failing("unknown checker '" + checker +
                   "' (mutual_exclusion, resource_safety or liveness)");
  }
  std::vector<FaultClass> classes;
  for (const std::string& name : fault_classes) {
    const auto fault_class = parse_fault_class(name);
    if (!fault_class) return failing("unknown fault class '" + name + "'");
    classes.push_back(*fault_class);
  }
  Scenario base;
  try {
    base = load_scenario_file(scenario_file);
  } catch (const std::exception& error) {
    return failing(error.what());
  }
  return [base, checker, classes, claim] { assert_keeps(base, checker, classes, claim); };
}

}  // namespace redlock_sim::rapidcheck
