// The HTML report of a 10-minute-simulated run with five clients (tests/perf/
// ten-minutes-five-clients.json): how long rendering the page takes, and how big it is. The run
// itself happens once, outside the timing; docs/perf.md records the figures (target: under 2 s
// and under 5 MB).
#include <benchmark/benchmark.h>

#include "api/lock_wiring.hpp"
#include "reports/html_report.hpp"
#include "scenarios/parser.hpp"
#include "sim/runner/runner.hpp"

namespace redlock_sim {
namespace {

struct Run {
  Scenario scenario;
  ScenarioResult result;
};

// As `redlock-sim run --html` runs it: with the message log on.
const Run& ten_minute_run() {
  static const Run run = [] {
    Run r;
    r.scenario = parse_scenario_file(std::string(REDLOCK_SOURCE_DIR) +
                                     "/tests/perf/ten-minutes-five-clients.json");
    RunOptions options;
    options.message_log_max = 200'000;
    r.result = run_scenario(r.scenario, registry_lock_factory(), options);
    return r;
  }();
  return run;
}

void BM_HtmlReportTenMinutesFiveClients(benchmark::State& state) {
  const Run& run = ten_minute_run();
  std::size_t bytes = 0;
  for (auto _ : state) {
    const std::string page = html_report(run.result);
    bytes = page.size();
    benchmark::DoNotOptimize(page.data());
  }
  state.counters["page_MB"] = static_cast<double>(bytes) / 1e6;
  state.counters["events"] = static_cast<double>(run.result.stats.events);
  state.counters["messages_logged"] = static_cast<double>(run.result.messages.size());
}
BENCHMARK(BM_HtmlReportTenMinutesFiveClients)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace redlock_sim

BENCHMARK_MAIN();
