// Exploration benchmarks (issue 6): the standard workload (scenarios/redlock-workload.json: five
// masters, three looping clients, 10 s simulated) under swarm plans of every fault class, one
// seed per iteration; and the time to find and shrink Kleppmann's clock-jump counterexample.
// Targets: >= 3 million simulated events/s per core end to end; a shrunk clock-jump
// counterexample in under 2 s.
#include <benchmark/benchmark.h>

#include "api/lock_wiring.hpp"
#include "scenarios/parser.hpp"
#include "sim/explore/explore.hpp"

namespace redlock_sim {
namespace {

Scenario load(const std::string& name) {
  return parse_scenario_file(std::string(REDLOCK_SOURCE_DIR) + "/scenarios/" + name + ".json");
}

void BM_ExploreStandardWorkload(benchmark::State& state) {
  const Scenario base = load("redlock-workload");
  const ExploreConfig config;
  const LockFactory factory = registry_lock_factory();
  uint64_t seed = 1;
  uint64_t events = 0;
  uint64_t seeds = 0;
  for (auto _ : state) {
    const SeedOutcome outcome = explore_seed(base, seed++, config, factory);
    events += outcome.events;
    ++seeds;
  }
  state.counters["seeds_per_s"] =
      benchmark::Counter(static_cast<double>(seeds), benchmark::Counter::kIsRate);
  state.counters["events_per_s"] =
      benchmark::Counter(static_cast<double>(events), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_ExploreStandardWorkload)->Unit(benchmark::kMillisecond)->MinTime(3);

// From the S01 control (partitions, no jump) with node clock steps on: seeds until the first MX
// violation, then shrinking it. Wall time per iteration is the figure.
void BM_FirstShrunkClockJump(benchmark::State& state) {
  const Scenario base = load("kleppmann-clock-jump-control");
  ExploreConfig config;
  config.classes = {FaultClass::node_clock_step};
  config.bounds.window_ms = 2'000;
  config.checkers = {"mutual_exclusion"};
  const LockFactory factory = registry_lock_factory();
  uint64_t seeds_needed = 0;
  std::size_t faults_left = 0;
  for (auto _ : state) {
    uint64_t seed = 1;
    while (explore_seed(base, seed, config, factory).violated.empty())
      ++seed;
    const ShrinkResult shrunk =
        shrink_scenario(scenario_for_seed(base, seed, config), "mutual_exclusion", factory);
    seeds_needed = seed;
    faults_left = shrunk.scenario.faults.size();
    benchmark::DoNotOptimize(shrunk);
  }
  state.counters["seeds_to_find"] = static_cast<double>(seeds_needed);
  state.counters["faults_after_shrink"] = static_cast<double>(faults_left);
}
BENCHMARK(BM_FirstShrunkClockJump)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace redlock_sim

BENCHMARK_MAIN();
