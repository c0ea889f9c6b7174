// The scenario writer: every file in scenarios/ survives parse -> write -> parse -> write with
// the same text, and the written scenario runs to the same trace digest as the original.
#include <gtest/gtest.h>

#include <filesystem>

#include "api/lock_wiring.hpp"
#include "scenarios/parser.hpp"
#include "scenarios/writer.hpp"
#include "sim/runner/runner.hpp"

namespace redlock_sim {
namespace {

TEST(ScenarioWriter, RoundTripsEveryScenarioFile) {
  int files = 0;
  for (const auto& entry :
       std::filesystem::directory_iterator(std::string(REDLOCK_SOURCE_DIR) + "/scenarios")) {
    if (entry.path().extension() != ".json") continue;
    ++files;
    const Scenario original = parse_scenario_file(entry.path().string());
    const std::string written = write_scenario(original);
    const Scenario reparsed = parse_scenario_text(written, entry.path().string() + " (written)");
    EXPECT_EQ(write_scenario(reparsed), written) << entry.path();
    EXPECT_EQ(reparsed.faults.size(), original.faults.size()) << entry.path();
    EXPECT_EQ(reparsed.clients.size(), original.clients.size()) << entry.path();
  }
  EXPECT_GT(files, 20);
}

// A partition that began before the run keeps its negative start through the writer, and the
// written file runs to the same trace (stale-replica-not-promoted's cut since -120000 ms).
TEST(ScenarioWriter, KeepsACutThatBeganBeforeTheRun) {
  const Scenario original = parse_scenario_file(std::string(REDLOCK_SOURCE_DIR) +
                                                "/scenarios/stale-replica-not-promoted.json");
  const std::string written = write_scenario(original);
  EXPECT_NE(written.find("\"at_ms\": -120000"), std::string::npos) << written;
  const Scenario reparsed = parse_scenario_text(written, "written");
  EXPECT_EQ(reparsed.faults.front().at_ms, -120'000);
  EXPECT_EQ(run_scenario(reparsed, registry_lock_factory()).trace_digest,
            run_scenario(original, registry_lock_factory()).trace_digest);
}

// A workload's extensions survive the writer (a shrunk or matrix counterexample keeps them).
TEST(ScenarioWriter, KeepsTheWorkloadsExtensions) {
  const Scenario original = parse_scenario_file(std::string(REDLOCK_SOURCE_DIR) +
                                                "/scenarios/workload-extends-past-the-ttl.json");
  ASSERT_TRUE(original.clients.at(0).workload.has_value());
  EXPECT_EQ(original.clients.at(0).workload->extend_every_ms, 700);
  const Scenario reparsed = parse_scenario_text(write_scenario(original), "written");
  EXPECT_EQ(reparsed.clients.at(0).workload->extend_every_ms, 700);
}

}  // namespace
}  // namespace redlock_sim
