// The sweep engine (cli/sweep.cpp): paths as the parser writes them, ranges, the grid, and a
// bisection that lands on the exact integer whatever the number of jobs.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "api/lock_wiring.hpp"
#include "cli/sweep.hpp"

namespace redlock_sim::cli {
namespace {

using nlohmann::json;

TEST(SweepPath, ReadsKeysAndIndexesAsTheParserWritesThem) {
  // A path of the parser's messages splits into keys and indexes.
  JsonPath path;
  ASSERT_FALSE(parse_json_path("$.faults[2].delta_ms", path));
  ASSERT_EQ(path.segments.size(), 3u);
  EXPECT_EQ(std::get<std::string>(path.segments[0]), "faults");
  EXPECT_EQ(std::get<std::size_t>(path.segments[1]), 2u);
  EXPECT_EQ(std::get<std::string>(path.segments[2]), "delta_ms");
  for (const char* bad : {"", "$", "faults[2]", "$.faults[x]", "$..a", "$.a[2", "$a"}) {
    EXPECT_TRUE(parse_json_path(bad, path)) << bad;
  }
}

TEST(SweepPath, SetsExistingIntegersCreatesMissingObjectsAndRefusesOtherTypes) {
  // Varying needs an integer field (or an absent one the parser may accept); arrays must hold
  // the index.
  json document = json::parse(R"({"faults": [{"delta_ms": 5, "kind": "x"}], "nodes": [{}]})");
  JsonPath path;
  ASSERT_FALSE(parse_json_path("$.faults[0].delta_ms", path));
  EXPECT_FALSE(set_at_path(document, path, 7, true));
  EXPECT_EQ(document["faults"][0]["delta_ms"], 7);
  ASSERT_FALSE(parse_json_path("$.faults[0].kind", path));
  EXPECT_EQ(*set_at_path(document, path, 7, true),
            "$.faults[0].kind is a string; only integers can be varied");
  ASSERT_FALSE(parse_json_path("$.faults[3].delta_ms", path));
  EXPECT_EQ(*set_at_path(document, path, 7, true), "no $.faults[3] in the file ($.faults has 1)");
  ASSERT_FALSE(parse_json_path("$.nodes[0].clock.rate_ppm", path));
  EXPECT_FALSE(set_at_path(document, path, 100, true));
  EXPECT_EQ(document["nodes"][0]["clock"]["rate_ppm"], 100);
  EXPECT_FALSE(remove_at_path(document, path));
  EXPECT_TRUE(remove_at_path(document, path));
}

TEST(SweepRange, ParsesFromToStepAndRefusesBadRanges) {
  // FROM..TO[:STEP]: a missing step gives about twenty intervals; the grid always ends at TO.
  SweepAxis axis;
  JsonPath path;
  ASSERT_FALSE(parse_vary("$.faults[2].delta_ms=0..400", axis, path));
  EXPECT_EQ(axis.name, "delta_ms");
  EXPECT_EQ(axis.step, 20);
  EXPECT_EQ(axis_values(axis).size(), 21u);
  ASSERT_FALSE(parse_vary("$.a=-5..6:4", axis, path));
  EXPECT_EQ(axis_values(axis), (std::vector<int64_t>{-5, -1, 3, 6}));
  for (const char* bad : {"$.a=5..1", "$.a=1..1", "$.a=0..10:0", "$.a=0..10:11", "$.a=0..x", "$.a",
                          "$.a=0..1000000:1", "$.a=0..10:-1", "a=0..1"}) {
    EXPECT_TRUE(parse_vary(bad, axis, path)) << bad;
  }
}

TEST(SweepGrid, EnumeratesEveryPointInOneFixedOrder) {
  // The grid is a pure function of the axes (a shard is a slice of it).
  const std::vector<SweepAxis> axes = {{.from = 0, .to = 2, .step = 1},
                                       {.from = 10, .to = 30, .step = 15}};
  const std::vector<std::vector<int64_t>> expected = {{0, 10}, {0, 25}, {0, 30}, {1, 10}, {1, 25},
                                                      {1, 30}, {2, 10}, {2, 25}, {2, 30}};
  EXPECT_EQ(sweep_grid(axes), expected);
}

SweepSetup node_jump_setup(unsigned jobs) {
  SweepSetup setup{
      .file = std::string(REDLOCK_SOURCE_DIR) + "/scenarios/node-clock-jump-within-drift.json",
      .factory = registry_lock_factory(),
      .jobs = jobs};
  std::ifstream in(setup.file);
  std::stringstream text;
  text << in.rdbuf();
  setup.document = json::parse(text.str());
  // B tries once, at 9847: its hold would start at 9897, the last millisecond of A's.
  setup.document["clients"][1]["steps"] = json::parse(R"([{"do": "acquire", "at_ms": 9847}])");
  SweepAxis axis;
  JsonPath path;
  EXPECT_FALSE(parse_vary("$.faults[2].delta_ms=0..400", axis, path));
  setup.axes = {axis};
  setup.paths = {path};
  return setup;
}

TEST(Sweep, BisectsTheNodeJumpToDriftPlusTimeoutPlusOne) {
  // S02's edge: unsafe iff the jump exceeds drift (102) + timeout (50) + 1 ms, found exactly
  // from a 20 ms grid.
  const SweepResult result = run_sweep(node_jump_setup(1));
  std::vector<SweepThreshold> mx;
  for (const SweepThreshold& t : result.thresholds)
    if (t.checker == "mutual_exclusion") mx.push_back(t);
  ASSERT_EQ(mx.size(), 1u);
  EXPECT_EQ(mx[0].last, 102 + 50 + 1);
  EXPECT_EQ(mx[0].last_verdict, "holds");
  EXPECT_EQ(mx[0].first, 102 + 50 + 2);
  EXPECT_EQ(mx[0].first_verdict, "violated");
  EXPECT_TRUE(mx[0].exact);
  EXPECT_EQ(result.grid_runs, 21u);
  EXPECT_FALSE(result.run_limit_hit);
}

TEST(Sweep, SameBytesWhateverTheJobsAndABudgetLeavesARange) {
  // Results depend on the setup only; a spent run budget is reported, not hidden.
  EXPECT_EQ(sweep_json_text(run_sweep(node_jump_setup(1))),
            sweep_json_text(run_sweep(node_jump_setup(3))));
  SweepSetup tight = node_jump_setup(2);
  tight.runs_max = 23;
  const SweepResult result = run_sweep(tight);
  EXPECT_TRUE(result.run_limit_hit);
  EXPECT_EQ(result.grid_runs + result.bisection_runs, 23u);
  bool inexact = false;
  for (const SweepThreshold& t : result.thresholds)
    inexact = inexact || !t.exact;
  EXPECT_TRUE(inexact);
}

}  // namespace
}  // namespace redlock_sim::cli
