// The terminal story of a violation: the hold intervals it quotes are the ones that overlap.
#include <gtest/gtest.h>

#include <string>

#include "api/lock_wiring.hpp"
#include "reports/text_report.hpp"
#include "scenarios/parser.hpp"
#include "sim/runner/runner.hpp"

namespace redlock_sim {
namespace {

std::string summary_of(const std::string& name) {
  const Scenario scenario =
      parse_scenario_file(std::string(REDLOCK_SOURCE_DIR) + "/scenarios/" + name + ".json");
  return summary_text(run_scenario(scenario, registry_lock_factory()), scenario.description,
                      "redlock-sim run " + name);
}

// S21b: A's grant lapses at 9898 ms and is resurrected by its unconditional extension at
// 12002 ms; A cannot tell, so its one hold runs from its grant to the new deadline and overlaps
// the whole of B's hold, and the story quotes it.
TEST(TextReport, OverlapQuotesTheHoldThroughTheLapse) {
  const std::string text = summary_of("extend-after-lapse-unconditional-set");
  EXPECT_NE(text.find("A held it from 2 ms to 21898 ms"), std::string::npos) << text;
  EXPECT_NE(text.find("both believed they held it during [10102, 19998) ms"), std::string::npos)
      << text;
}

// The partitions that explain S01 are in its story.
TEST(TextReport, StoryNamesThePartitions) {
  const std::string text = summary_of("kleppmann-clock-jump");
  EXPECT_NE(text.find("A     is cut off from N4, N5"), std::string::npos) << text;
  EXPECT_NE(text.find("B     is cut off from N1, N2"), std::string::npos) << text;
}

ScenarioResult result_of(const std::string& name) {
  const Scenario scenario =
      parse_scenario_file(std::string(REDLOCK_SOURCE_DIR) + "/scenarios/" + name + ".json");
  return run_scenario(scenario, registry_lock_factory());
}

// A cut that began before the run is told at 0 ms, saying since when, in the timeline (and the
// replica it cuts from its master says its link has been down since the cut's start plus
// repl-timeout, its master that it stopped listing the replica then).
TEST(TextReport, TimelineSaysSinceWhenACutBeganBeforeTheRun) {
  const std::string text = timeline_text(result_of("stale-replica-not-promoted"));
  EXPECT_NE(text.find("          0  R2                0            0  [fault] is cut off from M "
                      "since -120000 ms"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("link to the master down since -60000 ms (no data from the master since "
                      "-120000 ms, before the run)"),
            std::string::npos)
      << text;
  EXPECT_NE(
      text.find("replica R2 timed out at -60000 ms (no ACK since -120000 ms, before the run)"),
      std::string::npos)
      << text;
}

// S03a: the key table gives an expired key's end as the first millisecond it reads as missing
// (Redis's now > when): N3's clock runs 200/199 fast, so A's key (when = 10001) expires from
// 9952, the first t with floor(200t/199) > 10001, as the catalogue says; it printed 9951, the
// last millisecond it was live. On the perfect clocks: from 10002.
TEST(TextReport, KeyTableSaysExpiresFrom) {
  const std::string text = timeline_text(result_of("node-clock-fast-within-drift"));
  EXPECT_NE(text.find("[1, 9952) ms  expires from 9952 (its clock passed when = 10001)"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("[1, 10002) ms  expires from 10002 (its clock passed when = 10001)"),
            std::string::npos)
      << text;
}

// S01's story says where A's key on N3 went: the +10 s jump at 1000 ms makes it read as missing
// from that millisecond.
TEST(TextReport, StoryTellsWhereTheKeysExpire) {
  const std::string text = summary_of("kleppmann-clock-jump");
  EXPECT_NE(text.find("N3    A's key lock expires from 1000 (its clock passed when = 10001)"),
            std::string::npos)
      << text;
}

}  // namespace
}  // namespace redlock_sim
