// The link_loss fault kind (sim/faults/kinds/link_loss.cpp): one link loses messages for a window
// and gets its own loss back after it; read, written, told and run like every other kind.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "api/lock_wiring.hpp"
#include "scenarios/parser.hpp"
#include "scenarios/writer.hpp"
#include "sim/faults/fault_kind.hpp"
#include "sim/kernel/network.hpp"
#include "sim/runner/runner.hpp"

namespace redlock_sim {
namespace {

// One client, one node: A acquires at 0, releases at 1000 and acquires again at 3000; the link
// A -> N1 loses every message from 900 to 2000 ms (FAULT is replaced by the test's faults).
std::string scenario_text(const std::string& faults) {
  return R"({
  "name": "link-loss", "seed": 1,
  "nodes": [{"name": "N1"}],
  "clients": [
    {"name": "A", "profile": "single-instance", "nodes": ["N1"],
     "params": {"ttl_ms": 10000, "request_timeout_ms": 50, "retry_count": 0},
     "steps": [{"do": "acquire", "at_ms": 0}, {"do": "release", "at_ms": 1000},
               {"do": "acquire", "at_ms": 3000}]}
  ],
  "faults": )" +
         faults + R"(,
  "limits": {"duration_ms": 5000}
})";
}

const std::string lossy_window =
    R"([{"kind": "link_loss", "at_ms": 900, "from": "A", "to": "N1", "until_ms": 2000}])";

// The fate of every message A sent N1, by the instant it was sent.
std::vector<std::pair<int64_t, bool>> a_to_n1(const ScenarioResult& result) {
  std::vector<std::pair<int64_t, bool>> out;
  for (const MessageLogEntry& m : result.messages) {
    if (result.processes.at(m.from).name == "A" && result.processes.at(m.to).name == "N1") {
      out.emplace_back(m.sent_at.ns() / 1'000'000, m.dropped.has_value());
    }
  }
  return out;
}

// Inside the window every message A sends N1 is lost (the release at 1000 ms); before and after
// it none is (the acquisitions at 0 and 3000 ms), and N1's replies to A are never touched.
TEST(LinkLoss, LosesEveryMessageOnItsLinkInsideItsWindowOnly) {
  const Scenario scenario = parse_scenario_text(scenario_text(lossy_window), "loss.json");
  const ScenarioResult result =
      run_scenario(scenario, registry_lock_factory(), RunOptions{.message_log_max = 1000});
  const std::vector<std::pair<int64_t, bool>> sent = a_to_n1(result);
  ASSERT_FALSE(sent.empty());
  bool lost_inside = false;
  bool delivered_after = false;
  for (const auto& [at_ms, dropped] : sent) {
    SCOPED_TRACE(at_ms);
    if (at_ms >= 900 && at_ms < 2000) {
      EXPECT_TRUE(dropped);
      lost_inside = true;
    } else {
      EXPECT_FALSE(dropped);
      delivered_after = delivered_after || at_ms >= 2000;
    }
  }
  EXPECT_TRUE(lost_inside);
  EXPECT_TRUE(delivered_after);
  for (const MessageLogEntry& m : result.messages) {
    if (result.processes.at(m.from).name == "N1") {
      EXPECT_FALSE(m.dropped);
    }
  }
  // The lost release leaves A's key on N1, so the second acquisition is refused.
  EXPECT_EQ(result.history.grants().size(), 1U);
  const ScenarioResult clean =
      run_scenario(parse_scenario_text(scenario_text("[]"), "clean.json"), registry_lock_factory());
  EXPECT_EQ(clean.history.grants().size(), 2U);
}

// The fault is logged and told by the sending process, naming the link and the window.
TEST(LinkLoss, IsToldByTheSender) {
  const Scenario scenario = parse_scenario_text(scenario_text(lossy_window), "loss.json");
  const ScenarioResult result = run_scenario(scenario, registry_lock_factory());
  bool told = false;
  for (const StoryEvent& line : result.story) {
    if (line.kind != StoryKind::fault) continue;
    EXPECT_EQ(result.processes.at(line.process).name, "A");
    EXPECT_EQ(line.text, "loses every message to N1 until 2000 ms");
    told = true;
  }
  EXPECT_TRUE(told);
  const FaultSpec partial = parse_fault_text(
      R"({"kind": "link_loss", "at_ms": 0, "from": "A", "to": "N2", "loss": [1, 4]})", "partial");
  EXPECT_EQ(fault_kind("link_loss").story(partial), "loses 1 in 4 messages to N2");
}

// Read and written back the same; the default loss (every message) is not written.
TEST(LinkLoss, RoundTripsThroughTheWriter) {
  const std::string faults =
      R"([{"kind": "link_loss", "at_ms": 900, "from": "A", "to": "N1", "loss": [1, 3]},
          {"kind": "link_loss", "at_ms": 100, "from": "N1", "to": "A", "until_ms": 200}])";
  const Scenario scenario = parse_scenario_text(scenario_text(faults), "loss.json");
  ASSERT_EQ(scenario.faults.size(), 2U);
  EXPECT_EQ(write_fault(scenario.faults[0]),
            R"({"at_ms":900,"from":"A","kind":"link_loss","loss":[1,3],"to":"N1"})");
  EXPECT_FALSE(scenario.faults[0].until_ms);
  EXPECT_EQ(write_fault(scenario.faults[1]),
            R"({"at_ms":100,"from":"N1","kind":"link_loss","to":"A","until_ms":200})");
  const std::string written = write_scenario(scenario);
  const std::size_t first = written.find("\"loss\"");
  ASSERT_NE(first, std::string::npos) << written;
  EXPECT_EQ(written.find("\"loss\"", first + 1), std::string::npos) << written;
  const Scenario again = parse_scenario_text(written, "again.json");
  ASSERT_EQ(again.faults.size(), 2U);
  EXPECT_TRUE(again.faults[0].fields == scenario.faults[0].fields);
  EXPECT_EQ(again.faults[1].until_ms, 200);
}

// Bad input gets one clear error naming the field.
TEST(LinkLoss, RefusesAZeroLossAndAMissingReceiver) {
  const auto error_of = [](const std::string& faults) {
    try {
      parse_scenario_text(scenario_text(faults), "bad.json");
    } catch (const ScenarioError& e) {
      return e.path() + ": " + e.message();
    }
    return std::string("parsed");
  };
  EXPECT_EQ(error_of(R"([{"kind": "link_loss", "at_ms": 0, "from": "A", "to": "N1",
                          "loss": [0, 2]}])"),
            "$.faults[0].loss: expected a loss above zero: [n, d] with n >= 1");
  EXPECT_EQ(error_of(R"([{"kind": "link_loss", "at_ms": 0, "from": "A"}])"),
            "$.faults[0].to: missing: expected a string");
  EXPECT_EQ(
      error_of(R"([{"kind": "link_loss", "at_ms": 0, "from": "A", "to": "N9"}])").substr(0, 16),
      "$.faults[0].to: ");
}

// The network's loss on a link is readable, so the fault can give the link its own back.
TEST(LinkLoss, TheNetworkReportsALinksLoss) {
  Network network(1);
  network.name_process(0, "A");
  network.name_process(1, "N1");
  EXPECT_EQ(network.link_loss(0, 1), (std::pair<uint32_t, uint32_t>{0, 1}));
  network.set_link_loss(0, 1, 1, 10);
  EXPECT_EQ(network.link_loss(0, 1), (std::pair<uint32_t, uint32_t>{1, 10}));
  EXPECT_EQ(network.link_loss(1, 0), (std::pair<uint32_t, uint32_t>{0, 1}));
}

}  // namespace
}  // namespace redlock_sim
