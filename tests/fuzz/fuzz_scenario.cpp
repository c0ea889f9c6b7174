// Fuzz target: any bytes as a scenario file. The parser must accept or refuse them with a
// ScenarioError (never crash, hang or throw anything else); an accepted file is run with its
// limits cut down (events, memory, in-flight messages), and the run must end at a reported
// outcome.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "api/lock_wiring.hpp"
#include "scenarios/parser.hpp"
#include "sim/runner/runner.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
  using namespace redlock_sim;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  Scenario scenario;
  try {
    scenario = parse_scenario_text(text, "fuzz.json", registry_profile_check());
  } catch (const ScenarioError&) {
    return 0;  // refused cleanly: the CLI prints it and exits 2
  }
  scenario.limits.events_max = std::min<uint64_t>(scenario.limits.events_max, 20'000);
  scenario.limits.memory_mb = std::min<std::size_t>(scenario.limits.memory_mb, 64);
  scenario.limits.messages_in_flight_max =
      std::min<uint32_t>(scenario.limits.messages_in_flight_max, 10'000);
  const ScenarioResult result = run_scenario(scenario, registry_lock_factory());
  if (result.stats.stop.empty()) __builtin_trap();  // every run says how it ended
  return 0;
}
