// The pause_burst fault kind (sim/faults/kinds/pause_burst.cpp), added as one file: a train of
// pauses with its own typed fields, read, written, checked, run, told, shrunk and staged like
// every other kind, and listed and documented from its descriptor.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "api/lock_wiring.hpp"
#include "scenarios/parser.hpp"
#include "scenarios/writer.hpp"
#include "sim/faults/fault_kind.hpp"
#include "sim/runner/runner.hpp"

namespace redlock_sim {
namespace {

// One client, one node: A acquires at 1600 ms, inside the second of three 300 ms pauses that
// begin at 500, 1500 and 2500 ms (FAULTS is replaced by the test's faults).
std::string scenario_text(const std::string& faults) {
  return R"({
  "name": "pause-burst", "seed": 1,
  "nodes": [{"name": "N1"}],
  "clients": [
    {"name": "A", "profile": "single-instance", "nodes": ["N1"],
     "params": {"ttl_ms": 10000, "request_timeout_ms": 50, "retry_count": 0},
     "steps": [{"do": "acquire", "at_ms": 1600}]}
  ],
  "faults": )" +
         faults + R"(,
  "limits": {"duration_ms": 5000}
})";
}

const std::string burst = R"([{"kind": "pause_burst", "at_ms": 500, "target": "A",
                                "duration_ms": 300, "every_ms": 1000, "count": 3}])";

std::string error_of(const std::string& faults) {
  try {
    parse_scenario_text(scenario_text(faults), "bad.json");
  } catch (const ScenarioError& e) {
    return e.path() + ": " + e.message();
  }
  return "parsed";
}

// Each of the three pauses stops A (its acquisition at 1600 ms waits for the end of the second
// pause, at 1800 ms), and each is logged, told and probed as a pause, then resumed.
TEST(PauseBurst, PausesItsTargetCountTimesEveryPeriod) {
  const ScenarioResult result = run_scenario(
      parse_scenario_text(scenario_text(burst), "burst.json"), registry_lock_factory());
  ASSERT_EQ(result.history.grants().size(), 1U);
  EXPECT_GE(result.history.grants()[0].granted_at, Instant::from_ms(1800));
  std::vector<int64_t> paused_ms;
  std::vector<int64_t> resumed_ms;
  for (const RunEvent& e : result.events) {
    if (e.kind == RunEventKind::fault_applied) paused_ms.push_back(e.at.ns() / 1'000'000);
    if (e.kind == RunEventKind::pause_ended) resumed_ms.push_back(e.at.ns() / 1'000'000);
  }
  EXPECT_EQ(paused_ms, (std::vector<int64_t>{500, 1500, 2500}));
  EXPECT_EQ(resumed_ms, (std::vector<int64_t>{800, 1800, 2800}));
  EXPECT_EQ(result.history.probes().at("pause"), 3U);
  bool told = false;
  for (const StoryEvent& line : result.story) {
    told = told || line.text == "paused for 300 ms (a burst of 3, one every 1000 ms)";
  }
  EXPECT_TRUE(told);
  // Without the burst A is granted at once.
  const ScenarioResult calm =
      run_scenario(parse_scenario_text(scenario_text("[]"), "calm.json"), registry_lock_factory());
  ASSERT_EQ(calm.history.grants().size(), 1U);
  EXPECT_LT(calm.history.grants()[0].granted_at, Instant::from_ms(1700));
}

// Its own fields are read into its own struct, written back and read again the same; copies of
// the fault compare equal, and a changed field does not.
TEST(PauseBurst, RoundTripsItsTypedFields) {
  const Scenario scenario = parse_scenario_text(scenario_text(burst), "burst.json");
  ASSERT_EQ(scenario.faults.size(), 1U);
  EXPECT_FALSE(scenario.faults[0].fields.empty());
  const std::string written = write_scenario(scenario);
  EXPECT_NE(written.find("\"every_ms\""), std::string::npos) << written;
  const Scenario again = parse_scenario_text(written, "again.json");
  ASSERT_EQ(again.faults.size(), 1U);
  EXPECT_TRUE(again.faults[0].fields == scenario.faults[0].fields);
  const FaultSpec copy = scenario.faults[0];
  EXPECT_TRUE(copy.fields == scenario.faults[0].fields);
  const std::vector<FaultSpec> shorter = fault_kind("pause_burst").shorter(copy);
  ASSERT_EQ(shorter.size(), 2U);  // fewer pauses, then shorter ones
  EXPECT_FALSE(shorter[0].fields == copy.fields);
  EXPECT_FALSE(shorter[1].fields == copy.fields);
  EXPECT_FALSE(FaultFields() == copy.fields);
  EXPECT_TRUE(FaultFields() == FaultFields());
}

// Bad input gets one clear error naming the field.
TEST(PauseBurst, RefusesOverlappingPausesAndMissingFields) {
  EXPECT_EQ(error_of(R"([{"kind": "pause_burst", "at_ms": 0, "target": "A", "duration_ms": 10,
                          "every_ms": 10, "count": 2}])"),
            "$.faults[0].duration_ms: expected duration_ms < every_ms: a pause ends before the "
            "next");
  EXPECT_EQ(error_of(R"([{"kind": "pause_burst", "at_ms": 0, "target": "A", "duration_ms": 10,
                          "every_ms": 20}])"),
            "$.faults[0].count: missing: expected an integer in [1, 10000]");
  EXPECT_EQ(error_of(R"([{"kind": "pause_burst", "at_ms": 0, "target": "A", "duration_ms": 10,
                          "every_ms": 20, "count": 0}])")
                .substr(0, 19),
            "$.faults[0].count: ");
}

// Real mode stages it (SIGSTOP and SIGCONT through the harness's stage), and no exploration
// class draws it.
TEST(PauseBurst, IsStagedForRealAndDrawnByNoClass) {
  const FaultKindDescriptor& kind = fault_kind("pause_burst");
  EXPECT_NE(kind.stage, nullptr);
  EXPECT_EQ(kind.real_mode_refusal, nullptr);
  EXPECT_EQ(kind.node_class, nullptr);
  EXPECT_EQ(kind.client_class, nullptr);
}

}  // namespace
}  // namespace redlock_sim
