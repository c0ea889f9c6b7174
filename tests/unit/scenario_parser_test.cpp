// The scenario parser: a complete file parses; every kind of mistake gives one ScenarioError
// naming the file, the JSON path and what was expected; malformed input never crashes.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>

#include "scenarios/parser.hpp"
#include "scenarios/writer.hpp"
#include "sim/kernel/random.hpp"

namespace redlock_sim {
namespace {

const char* const valid = R"({
  "name": "example",
  "seed": 7,
  "nodes": [{"name": "N1"}, {"name": "N2", "clock": {"offset_ms": 5, "rate_ppm": 100}},
            {"name": "R1", "role": "replica", "replica_of": "N1",
             "persistence": {"mode": "aof", "appendfsync": "always"}}],
  "network": {"delay": {"kind": "uniform", "min_ms": 1, "max_ms": 3},
              "links": [{"from": "A", "to": "N2", "delay": {"ms": 5}, "loss": [1, 10]}]},
  "clients": [{"name": "A", "profile": "redlock", "params": {"ttl_ms": 10000, "clock": "wall"},
               "nodes": ["N1", "N2"],
               "steps": [{"do": "acquire"}, {"do": "increment"}, {"do": "sleep", "ms": 10},
                         {"do": "release", "at_ms": 500}]},
              {"name": "B", "profile": "redlock", "nodes": ["N1", "N2"],
               "workload": {"iterations": 3, "work_ms": 5}}],
  "resource": {"fencing": "fence-all"},
  "faults": [{"kind": "clock_step", "at_ms": 1000, "target": "N2", "delta_ms": 10000},
             {"kind": "partition", "name": "p", "at_ms": 0, "sides": [["A"], ["N2"]]},
             {"kind": "heal", "name": "p", "at_ms": 3000},
             {"kind": "crash", "at_ms": 10, "target": "N1", "restart_after_ms": 500},
             {"kind": "hold_message", "at_ms": 0, "from": "A", "to": "register",
              "command": "WRITE", "until_ms": 90000}],
  "limits": {"duration_ms": 100000},
  "expect": {"mutual_exclusion": "violated", "overlap": [2050, 9898], "probes": ["pause"],
             "not_probes": ["failover"]}
})";

std::string error_of(const std::string& text) {
  try {
    parse_scenario_text(text, "s.json");
  } catch (const ScenarioError& error) {
    return error.what();
  }
  return "(no error)";
}

std::string with(std::string text, const std::string& from, const std::string& to) {
  const auto at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  return text.replace(at, from.size(), to);
}

// Every section of a complete scenario is read.
TEST(ScenarioParser, ReadsACompleteScenario) {
  const Scenario s = parse_scenario_text(valid, "s.json");
  EXPECT_EQ(s.name, "example");
  EXPECT_EQ(s.seed, 7u);
  ASSERT_EQ(s.nodes.size(), 3u);
  EXPECT_EQ(s.nodes[1].clock.rate, Rate::ppm(100));
  EXPECT_EQ(s.nodes[2].persistence.mode, PersistenceMode::aof);
  EXPECT_EQ(s.nodes[2].persistence.appendfsync, AppendFsync::always);
  EXPECT_EQ(s.clients[0].params.at("ttl_ms"), ParamValue(int64_t{10000}));
  EXPECT_EQ(s.clients[0].params.at("clock"), ParamValue(std::string("wall")));
  EXPECT_EQ(s.clients[0].steps[3].at_ms, 500);
  EXPECT_EQ(s.clients[1].workload->iterations_max, 3u);
  EXPECT_EQ(s.resource.fencing, FencingMode::fence_all);
  EXPECT_EQ(s.resource.token_source, FencingTokenSource::oracle);
  EXPECT_EQ(s.faults.size(), 5u);
  EXPECT_EQ(s.faults[3].duration_ms, 500);
  EXPECT_EQ(s.expect.overlap, (std::pair<int64_t, int64_t>{2050, 9898}));
}

// The three typical mistakes of docs/scenario-format.md, with the exact messages users see.
TEST(ScenarioParser, TypicalMistakesGiveOneClearMessage) {
  EXPECT_EQ(error_of(with(valid, "\"delta_ms\": 10000", "\"delta\": 10000")),
            "s.json: $.faults[0].delta_ms: missing: expected an integer in "
            "[-1000000000000, 1000000000000]");
  EXPECT_EQ(error_of(with(valid, "\"nodes\": [\"N1\", \"N2\"],\n               \"steps\"",
                          "\"nodes\": [\"N1\", \"N7\"],\n               \"steps\"")),
            "s.json: $.clients[0].nodes[1]: no node is named \"N7\"");
  EXPECT_EQ(error_of(with(valid, "\"at_ms\": 1000", "\"at_ms\": \"1000\"")),
            "s.json: $.faults[0].at_ms: expected an integer in [0, 1000000000000], got a string "
            "\"1000\"");
}

// expect.grants: read, written back, and each names a client of the file.
TEST(ScenarioParser, ExpectedGrantsNameAClient) {
  const std::string text =
      with(valid, "\"not_probes\": [\"failover\"]",
           "\"not_probes\": [\"failover\"], \"grants\": [{\"client\": \"B\", \"at_ms\": 2050, "
           "\"validity_ms\": 9848}, {\"client\": \"A\", \"at_ms\": 50}]");
  const Scenario s = parse_scenario_text(text, "s.json");
  ASSERT_EQ(s.expect.grants.size(), 2u);
  EXPECT_EQ(s.expect.grants[0].client, "B");
  EXPECT_EQ(s.expect.grants[0].at_ms, 2050);
  EXPECT_EQ(s.expect.grants[0].validity_ms, 9848);
  EXPECT_FALSE(s.expect.grants[1].validity_ms.has_value());
  const Scenario reparsed = parse_scenario_text(write_scenario(s), "written");
  ASSERT_EQ(reparsed.expect.grants.size(), 2u);
  EXPECT_EQ(reparsed.expect.grants[0].validity_ms, 9848);
  EXPECT_EQ(reparsed.expect.grants[1].at_ms, 50);
  EXPECT_EQ(error_of(with(text, "{\"client\": \"A\", \"at_ms\": 50}",
                          "{\"client\": \"Z\", \"at_ms\": 50}")),
            "s.json: $.expect.grants[1].client: no client is named \"Z\"");
  EXPECT_EQ(error_of(with(text, "\"at_ms\": 50}", "\"at\": 50}")),
            "s.json: $.expect.grants[1].at_ms: missing: expected an integer in [0, "
            "1000000000000]");
}

// A command step names a node and a non-empty argv, and survives the writer; expect.replies
// names a client.
TEST(ScenarioParser, CommandStepsAndExpectedReplies) {
  const std::string step = "{\"do\": \"command\", \"node\": \"R1\", \"args\": [\"GET\", \"lock\"]}";
  const std::string text =
      with(valid, "{\"do\": \"sleep\", \"ms\": 10}", "{\"do\": \"sleep\", \"ms\": 10}, " + step);
  const Scenario s = parse_scenario_text(text, "s.json");
  ASSERT_EQ(s.clients[0].steps.at(3).kind, StepKind::command);
  EXPECT_EQ(s.clients[0].steps[3].node, "R1");
  EXPECT_EQ(s.clients[0].steps[3].args, (std::vector<std::string>{"GET", "lock"}));
  const std::string written = write_scenario(s);
  EXPECT_EQ(write_scenario(parse_scenario_text(written, "written")), written);
  EXPECT_NE(written.find("\"args\""), std::string::npos);
  EXPECT_EQ(error_of(with(text, "\"node\": \"R1\"", "\"node\": \"N9\"")),
            "s.json: $.clients[0].steps[3].node: no node is named \"N9\"");
  EXPECT_EQ(error_of(with(text, "[\"GET\", \"lock\"]", "[]")),
            "s.json: $.clients[0].steps[3].args: expected the command, e.g. [\"GET\", \"lock\"]");
  const std::string replies =
      with(text, "\"not_probes\": [\"failover\"]",
           "\"not_probes\": [\"failover\"], \"replies\": [{\"client\": \"A\", \"at_ms\": 1, "
           "\"reply\": \"(nil)\"}]");
  EXPECT_EQ(parse_scenario_text(replies, "s.json").expect.replies.at(0).reply, "(nil)");
  EXPECT_EQ(error_of(with(replies, "{\"client\": \"A\", \"at_ms\": 1",
                          "{\"client\": \"Q\", \"at_ms\": 1")),
            "s.json: $.expect.replies[0].client: no client is named \"Q\"");
}

// Initial data: string or integer values, an optional TTL, on masters only, each key once.
TEST(ScenarioParser, InitialDataOnMasters) {
  const std::string text =
      with(valid, "{\"name\": \"N1\"}",
           "{\"name\": \"N1\", \"data\": [{\"key\": \"fence\", \"value\": 32}, {\"key\": "
           "\"old\", \"value\": \"x\", \"ttl_ms\": 3000}]}");
  const Scenario s = parse_scenario_text(text, "s.json");
  ASSERT_EQ(s.nodes[0].data.size(), 2u);
  EXPECT_EQ(s.nodes[0].data[0].value, "32");
  EXPECT_FALSE(s.nodes[0].data[0].ttl_ms.has_value());
  EXPECT_EQ(s.nodes[0].data[1].ttl_ms, 3000);
  const std::string written = write_scenario(s);
  EXPECT_EQ(write_scenario(parse_scenario_text(written, "written")), written);
  EXPECT_EQ(parse_scenario_text(written, "written").nodes[0].data[1].value, "x");
  EXPECT_EQ(error_of(with(text, "\"key\": \"old\"", "\"key\": \"fence\"")),
            "s.json: $.nodes[0].data[1].key: duplicate key \"fence\"");
  EXPECT_EQ(
      error_of(with(valid, "\"replica_of\": \"N1\",",
                    "\"replica_of\": \"N1\", \"data\": [{\"key\": \"k\", \"value\": \"v\"}],")),
      "s.json: $.nodes[2].data: a replica starts in sync with its master: put the data on "
      "the master");
}

// Unknown fields, wrong enums, impossible values and dangling references are all caught.
// expect.probes and expect.not_probes name probes the runner has: a misspelt one would silently
// never fire (or never fail), so it is refused with the list.
TEST(ScenarioParser, ProbesAreNamedFromTheRunnersList) {
  const Scenario s = parse_scenario_text(valid, "s.json");
  EXPECT_EQ(s.expect.probes, (std::vector<std::string>{"pause"}));
  EXPECT_EQ(s.expect.not_probes, (std::vector<std::string>{"failover"}));
  EXPECT_EQ(
      error_of(with(valid, "\"not_probes\": [\"failover\"]", "\"not_probes\": [\"failovr\"]")),
      "s.json: $.expect.not_probes[0]: unknown probe \"failovr\" (known: clock_rate, "
      "clock_slew, clock_step, failover, key_lost_on_restart, pause)");
  EXPECT_NE(error_of(with(valid, "\"probes\": [\"pause\"]", "\"probes\": [\"gc\"]"))
                .find("$.expect.probes[0]: unknown probe \"gc\""),
            std::string::npos);
}

TEST(ScenarioParser, RejectsWhatCannotBeRight) {
  EXPECT_NE(error_of(with(valid, "\"seed\": 7", "\"sed\": 7")).find("$.sed: unknown field"),
            std::string::npos);
  EXPECT_NE(error_of(with(valid, "\"fence-all\"", "\"fence-everything\""))
                .find("$.resource.fencing: expected one of"),
            std::string::npos);
  EXPECT_NE(error_of(with(valid, "\"rate_ppm\": 100", "\"rate_ppm\": -1000000"))
                .find("$.nodes[1].clock.rate_ppm"),
            std::string::npos);
  EXPECT_NE(error_of(with(valid, "\"name\": \"N2\"", "\"name\": \"N1\"")).find("duplicate name"),
            std::string::npos);
  EXPECT_NE(
      error_of(with(valid, "\"name\": \"p\", \"at_ms\": 3000", "\"name\": \"q\", \"at_ms\": 3000"))
          .find("$.faults[2].name"),
      std::string::npos);
  EXPECT_NE(error_of(with(valid, "\"at_ms\": 1000", "\"at_ms\": 100001")).find("within the run"),
            std::string::npos);
  EXPECT_NE(error_of(with(valid, "\"until_ms\": 90000", "\"until_ms\": 90000, \"extra\": 1"))
                .find("$.faults[4].extra"),
            std::string::npos);
  // Per-link settings name processes that exist (they crashed the runner before).
  EXPECT_NE(
      error_of(with(valid, "{\"from\": \"A\", \"to\": \"N2\"", "{\"from\": \"X\", \"to\": \"N2\""))
          .find("$.network.links[0].from: no process"),
      std::string::npos);
  // A token node fits the client's nodes list.
  EXPECT_NE(error_of(with(valid, "\"clock\": \"wall\"}", "\"clock\": \"wall\", \"token_node\": 2}"))
                .find("$.clients[0].params.token_node: expected an index"),
            std::string::npos);
}

// A lock's node count is the length of its client's nodes list: a `nodes` parameter, even one
// equal to it, is refused with one message saying so (it was a second copy that could disagree).
TEST(ScenarioParser, TheNodeCountComesFromTheNodesList) {
  const std::string refused =
      "s.json: $.clients[0].params.nodes: no such parameter: a lock's node count comes from the "
      "client's nodes list (2 here); remove \"nodes\"";
  for (const char* count : {"1", "2", "3"}) {
    EXPECT_EQ(error_of(with(valid, "\"clock\": \"wall\"}",
                            std::string("\"clock\": \"wall\", \"nodes\": ") + count + "}")),
              refused);
  }
}

// A partition may begin before the run (negative at_ms) and must last into it; a fault of
// another kind may not: no run can start in the middle of a pause or after a clock step.
TEST(ScenarioParser, OnlyAPartitionMayBeginBeforeTheRun) {
  const std::string cut = R"("name": "p", "at_ms": 0, "sides")";
  EXPECT_EQ(error_of(with(valid, cut, R"("name": "p", "at_ms": -2000, "sides")")), "(no error)");
  EXPECT_EQ(parse_scenario_text(with(valid, cut, R"("name": "p", "at_ms": -2000, "sides")"), "s")
                .faults[1]
                .at_ms,
            -2000);
  EXPECT_EQ(error_of(with(valid, "\"at_ms\": 1000, \"target\": \"N2\"",
                          "\"at_ms\": -1000, \"target\": \"N2\"")),
            "s.json: $.faults[0].at_ms: expected at_ms >= 0: only a partition may begin before the "
            "run (a clock_step before time zero is not a state the run can start in)");
  EXPECT_NE(
      error_of(with(valid, "\"name\": \"p\", \"at_ms\": 3000", "\"name\": \"p\", \"at_ms\": -3000"))
          .find("$.faults[2].at_ms: expected at_ms >= 0"),
      std::string::npos);
  EXPECT_NE(error_of(with(valid, cut, R"("name": "p", "at_ms": -2000, "until_ms": 0, "sides")"))
                .find("$.faults[1].until_ms: expected until_ms > 0"),
            std::string::npos);
}

// Truncated, garbage, deeply nested and huge-number inputs are errors, not crashes.
// Files the parser used to accept and the runner then crashed on (issue 14's mutated files):
// a read/write/increment step with nothing to read or write, a link to a counter nobody uses,
// clocks that would read past int64 nanoseconds within the run.
TEST(ScenarioParser, RejectsWhatTheModelCannotRun) {
  const std::string no_resource = with(with(valid, R"("resource": {"fencing": "fence-all"},)", ""),
                                       R"("to": "register")", R"("to": "N1")");
  EXPECT_EQ(error_of(no_resource),
            "s.json: $.clients[0].steps[1].do: step \"increment\" needs the scenario's "
            "\"resource\" (none is declared)");
  EXPECT_EQ(error_of(with(no_resource, R"({"do": "increment"})", R"({"do": "read"})")),
            "s.json: $.clients[0].steps[1].do: step \"read\" needs the scenario's "
            "\"resource\" (none is declared)");
  EXPECT_EQ(error_of(with(valid, R"("from": "A", "to": "N2")", R"("from": "A", "to": "counter")")),
            "s.json: $.network.links[0].to: no process is named \"counter\": the external "
            "counter exists only when a client's nodes list names it");
  const std::string too_far =
      ": this clock would read past 4000000000000 ms, the model's range, within the run: keep "
      "the start epoch (1767225600000 ms) + offsets and steps + rate x limits.duration_ms below it";
  EXPECT_EQ(error_of(with(valid, R"("rate_ppm": 100)", R"("rate": [1000000000, 1])")),
            "s.json: $.nodes[1].clock" + too_far);
  EXPECT_EQ(error_of(with(valid, R"("params": {"ttl_ms")",
                          R"("clock": {"rate": [1000000000, 1]}, "params": {"ttl_ms")")),
            "s.json: $.clients[0].clock" + too_far);
  EXPECT_EQ(error_of(with(valid, R"("delta_ms": 10000})",
                          R"("delta_ms": 1000000000000},
             {"kind": "clock_step", "at_ms": 1, "target": "N1", "delta_ms": 1000000000000},
             {"kind": "clock_step", "at_ms": 2, "target": "N1", "delta_ms": -1000000000000},
             {"kind": "clock_step", "at_ms": 3, "target": "N1", "delta_ms": 1000000000000})")),
            "s.json: $.nodes[0].clock" + too_far);
  // A slow clock needs no bound (its far deadlines never come); a fast one within the bound parses.
  EXPECT_NO_THROW(parse_scenario_text(
      with(valid, R"("rate_ppm": 100)", R"("rate": [1, 1000000000])"), "s.json"));
  EXPECT_NO_THROW(
      parse_scenario_text(with(valid, R"("rate_ppm": 100)", R"("rate": [1000, 1])"), "s.json"));
}

TEST(ScenarioParser, MalformedInputNeverCrashes) {
  EXPECT_NE(error_of("").find("not valid JSON"), std::string::npos);
  EXPECT_NE(error_of("null").find("$: expected an object"), std::string::npos);
  EXPECT_NE(error_of(std::string(valid).substr(0, 300)).find("not valid JSON"), std::string::npos);
  EXPECT_NE(error_of(std::string(100'000, '[')).find("nesting deeper"), std::string::npos);
  EXPECT_NE(
      error_of(with(valid, "\"seed\": 7", "\"seed\": 99999999999999999999999999")).find("$.seed"),
      std::string::npos);
  EXPECT_NE(error_of(with(valid, "\"seed\": 7", "\"seed\": 1e400")).find("$"), std::string::npos);
  EXPECT_NE(error_of(std::string("\x00\xff\xfe{", 4)).find("not valid JSON"), std::string::npos);
  EXPECT_NE(error_of(std::string(5 * 1024 * 1024, ' ')).find("too large"), std::string::npos);
}

// Thousands of random corruptions of a valid file: each parses or is refused with a message.
TEST(ScenarioParser, RandomCorruptionsAreHandled) {
  Rng rng(2026);
  const std::string base = valid;
  int refused = 0;
  for (int i = 0; i < 3000; ++i) {
    std::string text = base;
    const int edits = static_cast<int>(rng.between(1, 4));
    for (int e = 0; e < edits && !text.empty(); ++e) {
      const std::size_t at = rng.below(text.size());
      switch (rng.below(4)) {
        case 0:
          text[at] = static_cast<char>(rng.below(256));
          break;
        case 1:
          text.erase(at, rng.below(20));
          break;
        case 2:
          text.insert(at, 1, "{}[]\",:0-e"[rng.below(10)]);
          break;
        default:
          text.resize(at);
          break;
      }
    }
    try {
      parse_scenario_text(text, "fuzz.json");
    } catch (const ScenarioError& error) {
      ++refused;
      EXPECT_EQ(std::string(error.what()).rfind("fuzz.json: ", 0), 0u);
    }
  }
  EXPECT_GT(refused, 2500);
}

}  // namespace
}  // namespace redlock_sim

namespace redlock_sim {
namespace {

// The complete example in docs/scenario-format.md parses, so the documentation cannot rot.
TEST(ScenarioParser, DocumentedExampleParses) {
  std::ifstream in(std::string(REDLOCK_SOURCE_DIR) + "/docs/scenario-format.md");
  ASSERT_TRUE(in) << "docs/scenario-format.md not found";
  std::stringstream text;
  text << in.rdbuf();
  const std::string doc = text.str();
  const auto start = doc.find("```json\n");
  ASSERT_NE(start, std::string::npos);
  const auto end = doc.find("```", start + 8);
  const Scenario s = parse_scenario_text(doc.substr(start + 8, end - start - 8), "doc");
  EXPECT_EQ(s.faults.size(), 14u);
  EXPECT_EQ(s.failover.sentinels.size(), 3u);
  EXPECT_EQ(s.clients[0].steps.size(), 9u);
  EXPECT_EQ(s.clients[0].steps[8].args, (std::vector<std::string>{"GET", "orders"}));
  EXPECT_EQ(s.expect.replies.at(0).reply, "(nil)");
}

}  // namespace
}  // namespace redlock_sim
