// The typed event log of a run: probes are predicates over its records, the story's fault and
// cluster lines are renderings of them, and the reports draw from them.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "api/lock_wiring.hpp"
#include "reports/html_report.hpp"
#include "scenarios/parser.hpp"
#include "sim/runner/run_event.hpp"
#include "sim/runner/runner.hpp"

namespace redlock_sim {
namespace {

ScenarioResult run_file(const std::string& name) {
  const Scenario scenario =
      parse_scenario_file(std::string(REDLOCK_SOURCE_DIR) + "/scenarios/" + name + ".json");
  return run_scenario(scenario, registry_lock_factory());
}

RunEvent restart_event(std::size_t before, std::size_t loaded) {
  RunEvent e{.kind = RunEventKind::cluster};
  e.cluster = ClusterEvent{.kind = ClusterEventKind::restarted,
                           .keys_loaded = loaded,
                           .keys_before_stop = before,
                           .keys_lost = before - loaded,
                           .load_source = "aof"};
  return e;
}

// key_lost_on_restart reads the count of lost keys, not the sentence that renders it.
TEST(RunEvent, KeyLostOnRestartFiresOnLostKeysOnly) {
  EXPECT_EQ(count_probes({restart_event(3, 3)}).count("key_lost_on_restart"), 0U);
  RunEvent reworded = restart_event(3, 1);
  reworded.cluster.load_source = "0 lost)";  // a sentence that once fooled a substring match
  EXPECT_EQ(count_probes({restart_event(3, 1), reworded}).at("key_lost_on_restart"), 2U);
  EXPECT_EQ(run_event_story(restart_event(3, 1))->text,
            "restart: loaded 1 keys from aof (3 before the stop, 2 lost)");
}

// Each clock fault, a pause and a promotion fire their probe once per event; a heal fires none
// and tells no story line.
TEST(RunEvent, ProbesArePredicatesOverEvents) {
  std::vector<RunEvent> events;
  for (const char* kind :
       {"clock_step", "clock_offset", "clock_rate", "clock_slew", "pause", "heal"}) {
    events.push_back(
        RunEvent{.kind = RunEventKind::fault_applied, .fault = FaultSpec{.kind = kind}});
  }
  events.push_back(RunEvent{.kind = RunEventKind::cluster,
                            .cluster = ClusterEvent{.kind = ClusterEventKind::promoted}});
  const std::map<std::string, uint64_t> counts = count_probes(events);
  EXPECT_EQ(
      counts,
      (std::map<std::string, uint64_t>{
          {"clock_rate", 1}, {"clock_slew", 1}, {"clock_step", 2}, {"failover", 1}, {"pause", 1}}));
  EXPECT_FALSE(run_event_story(events[5]));
}

// Every probe a scenario may expect is one a definition computes, and the other way round.
TEST(RunEvent, ExpectableProbesAreTheDefinedOnes) {
  std::vector<std::string> defined;
  for (const ProbeDefinition& probe : probe_definitions())
    defined.push_back(probe.name);
  EXPECT_TRUE(std::is_sorted(defined.begin(), defined.end()));
  EXPECT_EQ(defined, probe_names());
}

// A run logs its failover as typed events: the promotion is a record the HTML report and the
// failover probe read, and the story's line renders it.
TEST(RunEvent, FailoverRunLogsThePromotion) {
  const ScenarioResult result = run_file("failover-loses-lock");
  const auto promoted = std::find_if(result.events.begin(), result.events.end(), [](auto& e) {
    return e.kind == RunEventKind::cluster && e.cluster.kind == ClusterEventKind::promoted;
  });
  ASSERT_NE(promoted, result.events.end());
  EXPECT_EQ(result.processes.at(promoted->process).role, "node");
  EXPECT_GE(result.history.probes().at("failover"), 1U);
  const auto told = std::find_if(result.story.begin(), result.story.end(), [&](auto& line) {
    return line.event == static_cast<std::size_t>(promoted - result.events.begin());
  });
  ASSERT_NE(told, result.story.end());
  EXPECT_EQ(told->at, promoted->at);
  EXPECT_EQ(told->kind, StoryKind::fault);
}

// A power loss before the fsync: the node's restart record says how many keys it lost.
TEST(RunEvent, PowerLossRunLogsTheLostKeys) {
  const ScenarioResult result = run_file("aof-everysec-power-loss-before-fsync");
  const auto restarted = std::find_if(result.events.begin(), result.events.end(), [](auto& e) {
    return e.kind == RunEventKind::cluster && e.cluster.kind == ClusterEventKind::restarted;
  });
  ASSERT_NE(restarted, result.events.end());
  EXPECT_GT(restarted->cluster.keys_lost, 0U);
  EXPECT_GE(result.history.probes().at("key_lost_on_restart"), 1U);
}

// The HTML report draws partitions, heals, held messages and failovers from the result's events:
// the page is the same without the scenario's faults.
TEST(RunEvent, HtmlReportDrawsFaultsFromTheEvents) {
  Scenario scenario =
      parse_scenario_file(std::string(REDLOCK_SOURCE_DIR) + "/scenarios/failover-loses-lock.json");
  scenario.faults.push_back(FaultSpec{.kind = "partition",
                                      .at_ms = 50,
                                      .name = "cut",
                                      .side_a = {scenario.clients.front().name},
                                      .side_b = {scenario.nodes.back().name}});
  scenario.faults.push_back(FaultSpec{.kind = "heal", .at_ms = 120, .name = "cut"});
  scenario.faults.push_back(FaultSpec{
      .kind = "hold_message", .at_ms = 10, .until_ms = 400, .from = scenario.clients.front().name});
  const ScenarioResult result = run_scenario(scenario, registry_lock_factory());
  const std::string page = html_report(result);
  EXPECT_NE(page.find("cut off from"), std::string::npos);
  EXPECT_NE(page.find("the network holds its next"), std::string::npos);
}

// The report renders from the result alone: the run carries the scenario's description, source
// file and lock keys (result_for), and the page's header and key lifetimes read them there.
TEST(RunEvent, HtmlReportRendersFromTheResultAlone) {
  const Scenario scenario =
      parse_scenario_file(std::string(REDLOCK_SOURCE_DIR) + "/scenarios/failover-loses-lock.json");
  ScenarioResult result = run_scenario(scenario, registry_lock_factory());
  ASSERT_FALSE(scenario.description.empty());
  EXPECT_EQ(result.description, scenario.description);
  EXPECT_EQ(result.source, scenario.source);
  std::set<std::string> locks;
  for (const ClientSpec& client : scenario.clients)
    locks.insert(client.lock);
  EXPECT_EQ(result.locks, locks);
  const std::string page = html_report(result);
  EXPECT_NE(page.find("run " + scenario.source + " --seed"), std::string::npos);
  result.description = "told by the result";
  result.source = "elsewhere/told.json";
  const std::string retold = html_report(result);
  EXPECT_NE(retold.find("<p class=\"description\">told by the result</p>"), std::string::npos);
  EXPECT_NE(retold.find("run elsewhere/told.json --seed"), std::string::npos);
  // Without lock keys no key lifetime is drawn: the page's keys come from the result too.
  ASSERT_FALSE(result.keys.empty());
  result.locks.clear();
  EXPECT_NE(html_report(result), retold);
}

// A story line's kind is typed; its name is only what the outputs print.
TEST(RunEvent, StoryKindsPrintTheirTags) {
  EXPECT_EQ(story_kind_name(StoryKind::fault), "fault");
  EXPECT_EQ(story_kind_name(StoryKind::grant), "grant");
  EXPECT_EQ(story_kind_name(StoryKind::cluster), "cluster");
  EXPECT_EQ(story_kind_name(StoryKind::write), "write");
}

}  // namespace
}  // namespace redlock_sim
