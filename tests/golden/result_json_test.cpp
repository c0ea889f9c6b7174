// The JSON result's contract (docs/scenario-format.md, "The result"), over every scenario file:
// `scenario`, `seed`, `verdicts` (three checkers, each holds / violated / not_checked),
// `violations` (each with its true-time interval in ms), `expectations_met`, `trace_digest` (hex)
// and `stats` (with `stop_reason`).
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <regex>
#include <string>

#include "api/lock_wiring.hpp"
#include "reports/result_json.hpp"
#include "scenarios/parser.hpp"
#include "sim/runner/runner.hpp"

namespace redlock_sim {
namespace {

TEST(ResultJson, EveryScenarioKeepsTheContract) {
  const std::regex hex("[0-9a-f]{16}");
  std::size_t files = 0;
  std::size_t violations = 0;
  for (const auto& entry :
       std::filesystem::directory_iterator(std::string(REDLOCK_SOURCE_DIR) + "/scenarios")) {
    if (entry.path().extension() != ".json") continue;
    ++files;
    SCOPED_TRACE(entry.path().filename().string());
    const Scenario scenario = parse_scenario_file(entry.path().string());
    const nlohmann::json r =
        nlohmann::json::parse(result_json_text(run_scenario(scenario, registry_lock_factory())));
    EXPECT_EQ(r.at("scenario"), scenario.name);
    EXPECT_TRUE(r.at("seed").is_number_unsigned());
    for (const char* checker : {"mutual_exclusion", "resource_safety", "liveness"}) {
      const std::string verdict = r.at("verdicts").at(checker);
      EXPECT_TRUE(verdict == "holds" || verdict == "violated" || verdict == "not_checked")
          << verdict;
    }
    EXPECT_TRUE(r.at("expectations_met").is_boolean());
    EXPECT_TRUE(std::regex_match(r.at("trace_digest").get<std::string>(), hex));
    for (const char* stat : {"events", "simulated_ms", "grants"})
      EXPECT_TRUE(r.at("stats").at(stat).is_number_integer()) << stat;
    // How the run ended (issue 14): a catalogue file ends idle or at its duration, no limit.
    const std::string stop = r.at("stats").at("stop_reason");
    EXPECT_TRUE(stop == "idle" || stop == "reached_until") << stop;
    for (const nlohmann::json& v : r.at("violations")) {
      ++violations;
      for (const char* field : {"checker", "kind", "clients", "grants", "description"})
        EXPECT_TRUE(v.contains(field)) << field;
      EXPECT_LE(v.at("start_ms").get<int64_t>(), v.at("end_ms").get<int64_t>());
      EXPECT_EQ(v.at("length_ms").get<int64_t>(),
                v.at("end_ms").get<int64_t>() - v.at("start_ms").get<int64_t>());
    }
  }
  EXPECT_GT(files, 70u);
  EXPECT_GT(violations, 50u);
}

// A file with command steps lists their replies in its JSON result (S15 read on the nodes: A's
// key on M, none on the replica before the failover, B's on it after), in step order, and tells
// them in its story; a file without command steps has no `replies`.
TEST(ResultJson, CommandStepRepliesAreListed) {
  const Scenario scenario = parse_scenario_file(
      std::string(REDLOCK_SOURCE_DIR) + "/scenarios/failover-loses-lock-replica-reads.json");
  const ScenarioResult result = run_scenario(scenario, registry_lock_factory());
  const nlohmann::json r = nlohmann::json::parse(result_json_text(result));
  EXPECT_EQ(r.at("replies"), nlohmann::json::parse(R"([
    {"client": "O", "node": "M", "command": ["EXISTS", "lock"], "at_ms": 20, "reply": "(integer) 1"},
    {"client": "O", "node": "R", "command": ["EXISTS", "lock"], "at_ms": 3000, "reply": "(integer) 0"},
    {"client": "O", "node": "R", "command": ["EXISTS", "lock"], "at_ms": 9000, "reply": "(integer) 1"}
  ])"));
  bool told = false;
  for (const StoryEvent& e : result.story)
    told = told || e.text == "R replies to EXISTS lock: (integer) 0";
  EXPECT_TRUE(told);
  const Scenario plain =
      parse_scenario_file(std::string(REDLOCK_SOURCE_DIR) + "/scenarios/failover-loses-lock.json");
  EXPECT_FALSE(nlohmann::json::parse(result_json_text(run_scenario(plain, registry_lock_factory())))
                   .contains("replies"));
}

}  // namespace
}  // namespace redlock_sim
