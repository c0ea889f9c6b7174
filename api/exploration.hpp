// Exploration as library calls: runs of many seeds (each seed single-threaded and
// deterministic), their violations grouped into findings, each finding shrunk to a minimal
// scenario, and the files that show it. `redlock-sim explore` and an embedding program are both
// thin users of this.
#pragma once

#include <atomic>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "api/workers.hpp"
#include "sim/explore/explore.hpp"

namespace redlock_sim {

// Counters a progress line can read while seeds run (on other threads).
struct ExploreProgress {
  std::atomic<uint64_t> done{0};
  std::atomic<uint64_t> events{0};
  std::atomic<uint64_t> mx{0};
  std::atomic<uint64_t> rs{0};
  std::atomic<uint64_t> lv{0};
};

// What a run of seeds gave: totals over the longest completed prefix of the seeds, and the
// outcomes of its violating seeds (plans dropped). Memory grows with the violations, not with the
// seeds, so a time limit can run for hours.
struct Explored {
  uint64_t seeds = 0;
  uint64_t events = 0;
  uint64_t attribution_runs = 0;
  uint64_t limit_hits = 0;  // seeds whose run stopped at a limit (events, messages in flight)
  std::map<std::string, uint64_t> violating;  // checker -> seeds that violated it
  std::vector<SeedOutcome> violations;        // in seed order
};

struct SeedRange {
  uint64_t start = 1;
  uint64_t count = 0;
  double time_limit_s = 0;  // 0: none; else no new seed starts after this many seconds
  unsigned jobs = 1;        // workers handed to RunWorkers
  bool attribute = true;    // find the fault classes each violation needs (extra runs)
};

// Runs seeds [start, start + count) until done or out of time. Results are taken in seed order
// as the prefix of finished seeds grows, so the seeds reported are always contiguous and the
// totals do not depend on the number of workers.
Explored explore_seeds(const Scenario& base, const ExploreConfig& config, const SeedRange& range,
                       const LockFactory& factory, const RunWorkers& workers = run_workers_inline,
                       ExploreProgress* progress = nullptr);

struct ShrunkFinding {
  Finding finding;
  std::size_t index = 0;                   // its position among the findings
  ShrinkResult shrunk;                     // its scenario named and described after the finding
  std::size_t faults_before = 0;           // the seed's run: the base's faults and the plan's
  std::vector<FaultClass> classes_before;  // of the scenario shrinking started from
};

// Shrinks up to `count` findings, distinct ones first (shrink_order: a finding whose classes all
// appear in an earlier finding of the same checker waits), in parallel, results in finding order;
// each from its first seed's faults of the involved classes only.
std::vector<ShrunkFinding> shrink_findings(const Scenario& base, const ExploreConfig& config,
                                           const std::vector<Finding>& findings, std::size_t count,
                                           uint32_t runs_max, const LockFactory& factory,
                                           const RunWorkers& workers = run_workers_inline,
                                           unsigned jobs = 1);

// Writes a counterexample as `redlock-sim run` shows it: DIR/STEM.json (the scenario, its source
// set to that path), STEM.result.json, STEM.txt (whose reproduce line is `program run PATH`) and
// STEM.html. False when a file cannot be written.
bool write_counterexample(Scenario& scenario, const std::string& dir, const std::string& stem,
                          const LockFactory& factory, const std::string& program);

// One seed's run under `config` (its whole fault plan), shrunk to a minimal scenario that still
// violates `checker`, named after the base, the checker and the seed, and described as found by
// `finder`. For a seed known to violate `checker` (the RapidCheck helper's failing case).
ShrinkResult shrink_seed(const Scenario& base, uint64_t seed, const ExploreConfig& config,
                         const std::string& checker, uint32_t runs_max, const LockFactory& factory,
                         const std::string& finder);

// A scenario's faults, one JSON object a line, as its scenario file writes them: the fault plan
// a failure message shows. "(no faults)" when it has none.
std::string faults_text(const Scenario& scenario);

// The command that reproduces a counterexample written by write_counterexample.
std::string reproduce_command(const std::string& program, const std::string& dir,
                              const std::string& stem);

// The whole exploration in one call, for embedding programs.
struct ExploreOptions {
  ExploreConfig config;
  SeedRange seeds{.count = 100};
  std::size_t shrink_max = 8;
  uint32_t shrink_runs_max = 2'000;
  RunWorkers workers = run_workers_inline;
};

struct ExploreReport {
  Explored explored;
  std::vector<Finding> findings;      // first seen first
  std::vector<ShrunkFinding> shrunk;  // up to shrink_max findings, distinct first, shrunk
};

ExploreReport explore(const Scenario& base, const LockFactory& factory,
                      const ExploreOptions& options = {});

}  // namespace redlock_sim
