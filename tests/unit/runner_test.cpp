// The runner end to end on the headline scenario: beliefs (holds), reality (key lifetimes),
// verdicts and the story, through the real lock registry.
#include <gtest/gtest.h>

#include "api/lock_wiring.hpp"
#include "scenarios/parser.hpp"
#include "scenarios/writer.hpp"
#include "sim/explore/shrink.hpp"
#include "sim/runner/runner.hpp"

namespace redlock_sim {
namespace {

ScenarioResult run_file(const std::string& name) {
  const Scenario scenario =
      parse_scenario_file(std::string(REDLOCK_SOURCE_DIR) + "/scenarios/" + name + ".json");
  return run_scenario(scenario, registry_lock_factory());
}

// Two runs of one world that differ only in what they record (digest, trace, story) are the same
// run: the same verdicts and the same counts of events, messages and grants.
void expect_same_run(const ScenarioResult& lean, const ScenarioResult& full) {
  EXPECT_EQ(lean.mutual_exclusion, full.mutual_exclusion);
  EXPECT_EQ(lean.resource_safety, full.resource_safety);
  EXPECT_EQ(lean.liveness, full.liveness);
  EXPECT_EQ(lean.stats.events, full.stats.events);
  EXPECT_EQ(lean.stats.messages, full.stats.messages);
  EXPECT_EQ(lean.stats.grants, full.stats.grants);
}

// S01: the holds are the catalogue's, and N3's copy of A's key dies when N3's clock jumps.
TEST(Runner, KleppmannClockJumpBeliefsAndReality) {
  const ScenarioResult result = run_file("kleppmann-clock-jump");
  EXPECT_EQ(result.mutual_exclusion, Verdict::violated);
  EXPECT_TRUE(result.expectations_met);
  ASSERT_EQ(result.holds.size(), 2u);
  EXPECT_EQ(result.holds[0].start, Instant::from_ms(50));
  EXPECT_EQ(result.holds[0].end, Instant::from_ms(9898));
  EXPECT_EQ(result.holds[1].start, Instant::from_ms(2050));
  const auto n3 = std::find_if(result.keys.begin(), result.keys.end(), [&](const KeyLifetime& k) {
    return result.processes[k.node].name == "N3";
  });
  ASSERT_NE(n3, result.keys.end());
  EXPECT_EQ(n3->start, Instant::from_ms(1));
  EXPECT_EQ(n3->end, Instant::from_ms(1000));
  EXPECT_EQ(n3->end_reason, "expired");
  int keys_on_n1 = 0;
  for (const KeyLifetime& k : result.keys)
    keys_on_n1 += result.processes[k.node].name == "N1";
  EXPECT_EQ(keys_on_n1, 1);  // B never reached N1
}

// Clocks at rate 1/10^9 (node and client) used to abort on an assertion: deadlines past the last
// instant never come, and the run reaches its end (limits.duration_ms) with the grant it got.
TEST(Runner, ClocksOneBillionTimesSlowRunToTheDurationLimit) {
  const Scenario scenario = parse_scenario_text(R"({
    "name": "slow-clocks",
    "nodes": [{"name": "N1", "clock": {"rate": [1, 1000000000]}}],
    "clients": [{"name": "A", "profile": "redlock", "nodes": ["N1"],
                 "clock": {"rate": [1, 1000000000]}, "params": {"ttl_ms": 30000},
                 "steps": [{"do": "acquire"}, {"do": "sleep", "ms": 100000},
                           {"do": "release"}]}],
    "limits": {"duration_ms": 60000}
  })",
                                                "slow.json");
  const ScenarioResult result = run_scenario(scenario, registry_lock_factory());
  EXPECT_EQ(result.stats.stop, "reached_until");
  EXPECT_EQ(result.stats.grants, 1u);
  EXPECT_EQ(result.stats.simulated_ms, 60000);
}

// A crash without persistence ends the node's keys at the crash.
// expect.not_probes: a probe that fires fails the expectations, naming it and its count.
TEST(Runner, AProbeExpectedNotToFireFailsWhenItFires) {
  Scenario scenario =
      parse_scenario_file(std::string(REDLOCK_SOURCE_DIR) + "/scenarios/kleppmann-clock-jump.json");
  scenario.expect.not_probes = {"clock_step", "failover"};
  const ScenarioResult result = run_scenario(scenario, registry_lock_factory());
  EXPECT_FALSE(result.expectations_met);
  EXPECT_EQ(result.expectation_failures,
            (std::vector<std::string>{"probe clock_step: expected not to fire, count 1"}));
}

// expect.grants: S01's two grants match (A at 50 ms, B at 2050 ms, validity 9848 each); a grant
// at a time nobody was granted fails, naming what the client got.
TEST(Runner, ExpectedGrantsMatchTheTimeline) {
  Scenario scenario =
      parse_scenario_file(std::string(REDLOCK_SOURCE_DIR) + "/scenarios/kleppmann-clock-jump.json");
  ASSERT_EQ(scenario.expect.grants.size(), 2u);
  EXPECT_TRUE(run_scenario(scenario, registry_lock_factory()).expectations_met);
  scenario.expect.grants = {ExpectedGrant{.client = "B", .at_ms = 3000},
                            ExpectedGrant{.client = "A", .at_ms = 52, .validity_ms = 9900}};
  const ScenarioResult result = run_scenario(scenario, registry_lock_factory());
  EXPECT_FALSE(result.expectations_met);
  EXPECT_EQ(result.expectation_failures,
            (std::vector<std::string>{
                "grants: expected B granted at 3000 ms within 5 ms, got grants at 2050 ms "
                "(validity 9848 ms)",
                "grants: expected A granted at 52 ms with validity 9900 ms within 5 ms, got "
                "grants at 50 ms (validity 9848 ms)"}));
}

// The shrinker keeps a file with expected grants valid: its output parses and expects exactly
// the violation it shows (the timeline's grants are not the shrunk run's).
TEST(Runner, ShrinkingAFileWithExpectedGrants) {
  const Scenario scenario =
      parse_scenario_file(std::string(REDLOCK_SOURCE_DIR) + "/scenarios/kleppmann-clock-jump.json");
  const ShrinkResult shrunk = shrink_scenario(scenario, "mutual_exclusion", registry_lock_factory(),
                                              ShrinkOptions{.runs_max = 100});
  const Scenario reparsed = parse_scenario_text(write_scenario(shrunk.scenario), "shrunk");
  EXPECT_TRUE(reparsed.expect.grants.empty());
  EXPECT_TRUE(run_scenario(reparsed, registry_lock_factory()).expectations_met);
}

// Initial data is the node's before the run: a restart without persistence loses it, one with
// AOF or RDB keeps it (it is on disk as if saved long before); a TTL counts from time zero.
TEST(Runner, InitialDataSurvivesARestartOnlyWithPersistence) {
  const std::string text = R"({"name": "seeded", "nodes": [{"name": "M", PERSISTENCE
      "data": [{"key": "fence", "value": 32}, {"key": "short", "value": "v", "ttl_ms": 300}]}],
    "clients": [{"name": "A", "profile": "single-instance", "nodes": ["M"], "steps": [
      {"do": "command", "at_ms": 200, "node": "M", "args": ["GET", "short"]},
      {"do": "command", "at_ms": 400, "node": "M", "args": ["GET", "short"]},
      {"do": "command", "at_ms": 1000, "node": "M", "args": ["GET", "fence"]}]}],
    "faults": [{"kind": "crash", "at_ms": 500, "target": "M", "restart_after_ms": 100}]})";
  auto replies = [&](const std::string& persistence) {
    std::string file = text;
    file.replace(file.find("PERSISTENCE"), 11, persistence);
    const ScenarioResult result =
        run_scenario(parse_scenario_text(file, "seeded.json"), registry_lock_factory());
    std::vector<std::string> out;
    for (const CommandReplyRecord& r : result.replies)
      out.push_back(r.reply);
    return out;
  };
  EXPECT_EQ(replies(""), (std::vector<std::string>{"\"v\"", "(nil)", "(nil)"}));
  EXPECT_EQ(replies(R"("persistence": {"mode": "aof"},)"),
            (std::vector<std::string>{"\"v\"", "(nil)", "\"32\""}));
  EXPECT_EQ(replies(R"("persistence": {"mode": "rdb"},)"),
            (std::vector<std::string>{"\"v\"", "(nil)", "\"32\""}));
}

TEST(Runner, CrashEndsKeyLifetimes) {
  const ScenarioResult result = run_file("crash-restart-without-persistence");
  bool crashed = false;
  for (const KeyLifetime& k : result.keys) {
    if (result.processes[k.node].name == "N3" && k.end_reason == "crashed") {
      crashed = true;
      EXPECT_EQ(k.end, Instant::from_ms(1000));
    }
  }
  EXPECT_TRUE(crashed);
}

// Re-entrant acquisitions: each release gives back the innermost grant, and the outer one
// is current again (its release is not dropped), so B gets the lock.
TEST(Runner, ReentrantReleasesGiveBackEachGrant) {
  const ScenarioResult result = run_file("reentrant-releases-give-back-each-grant");
  EXPECT_TRUE(result.expectations_met);
  ASSERT_EQ(result.holds.size(), 3u);
  EXPECT_EQ(result.holds[0].start, Instant::from_ms(2));
  EXPECT_EQ(result.holds[0].end, Instant::from_ms(300));
  EXPECT_EQ(result.holds[1].start, Instant::from_ms(102));
  EXPECT_EQ(result.holds[1].end, Instant::from_ms(200));
  EXPECT_EQ(result.holds[2].start, Instant::from_ms(1002));  // B
}

// S23b over many seeds, as the catalogue asks: with jittered retries one client wins in
// nearly every seed, and mutual exclusion holds in every one.
TEST(Runner, SplitVoteWithJitterOverManySeeds) {
  const Scenario scenario = parse_scenario_file(std::string(REDLOCK_SOURCE_DIR) +
                                                "/scenarios/split-vote-jittered-retry.json");
  int acquired = 0;
  for (uint64_t seed = 1; seed <= 100; ++seed) {
    const ScenarioResult result =
        run_scenario(scenario, registry_lock_factory(), RunOptions{.seed = seed});
    EXPECT_EQ(result.mutual_exclusion, Verdict::holds) << "seed " << seed;
    acquired += result.stats.grants > 0 ? 1 : 0;
  }
  EXPECT_GE(acquired, 95);
}

// Two runs of the same scenario in one process give the same digest and the same story.
TEST(Runner, SameScenarioSameResult) {
  const ScenarioResult a = run_file("gc-pause-after-acquire-fenced");
  const ScenarioResult b = run_file("gc-pause-after-acquire-fenced");
  EXPECT_EQ(a.trace_digest, b.trace_digest);
  ASSERT_EQ(a.story.size(), b.story.size());
  for (std::size_t i = 0; i < a.story.size(); ++i)
    EXPECT_EQ(a.story[i].text, b.story[i].text);
}

// Without message contents in the digest (exploration's runs) a run is the same run: the same
// verdicts and stats, and a digest that no longer depends on what the messages said.
TEST(Runner, DigestWithoutMessageContentsLeavesTheRunAlone) {
  const Scenario scenario = parse_scenario_file(std::string(REDLOCK_SOURCE_DIR) +
                                                "/scenarios/gc-pause-after-acquire-fenced.json");
  const ScenarioResult full = run_scenario(scenario, registry_lock_factory());
  const ScenarioResult lean =
      run_scenario(scenario, registry_lock_factory(), RunOptions{.digest_message_contents = false});
  expect_same_run(lean, full);
  EXPECT_NE(lean.trace_digest, full.trace_digest);
  EXPECT_EQ(lean.trace_digest, run_scenario(scenario, registry_lock_factory(),
                                            RunOptions{.digest_message_contents = false})
                                   .trace_digest);
}

// Without a trace digest (exploration's runs, which keep no trace records either) nothing is
// recorded and the result has no digest, and the run is the same run: the same verdicts, stats
// and history.
TEST(Runner, WithoutATraceDigestTheRunIsTheSameRun) {
  for (const char* name : {"redlock-workload", "gc-pause-after-acquire-fenced"}) {
    const Scenario scenario =
        parse_scenario_file(std::string(REDLOCK_SOURCE_DIR) + "/scenarios/" + name + ".json");
    const RunOptions lean{.trace_records_max = 0, .digest_message_contents = false};
    RunOptions undigested = lean;
    undigested.trace_digest = false;
    const ScenarioResult digested = run_scenario(scenario, registry_lock_factory(), lean);
    const ScenarioResult untraced = run_scenario(scenario, registry_lock_factory(), undigested);
    EXPECT_EQ(digested.trace_digest.size(), 16u);
    EXPECT_TRUE(digested.trace_truncated);  // recorded, none kept
    EXPECT_EQ(untraced.trace_digest, "");
    EXPECT_FALSE(untraced.trace_truncated);  // nothing recorded
    EXPECT_TRUE(untraced.trace.empty());
    expect_same_run(untraced, digested);
    EXPECT_EQ(untraced.history.grants().size(), digested.history.grants().size());
    EXPECT_EQ(untraced.history.acquires().size(), digested.history.acquires().size());
  }
}

// With trace records kept, a run without a digest still records them all.
TEST(Runner, WithoutATraceDigestKeptRecordsAreStillRecorded) {
  const Scenario scenario = parse_scenario_file(std::string(REDLOCK_SOURCE_DIR) +
                                                "/scenarios/gc-pause-after-acquire-fenced.json");
  const ScenarioResult full = run_scenario(scenario, registry_lock_factory());
  const ScenarioResult undigested =
      run_scenario(scenario, registry_lock_factory(), RunOptions{.trace_digest = false});
  EXPECT_EQ(undigested.trace_digest, "");
  ASSERT_FALSE(full.trace.empty());
  EXPECT_EQ(undigested.trace.size(), full.trace.size());
  EXPECT_EQ(undigested.trace_truncated, full.trace_truncated);
}

// Without a story (exploration's runs) the clients and their locks build no line's text, and the
// run is the same run: the same digest, verdicts, stats and history, only no story.
TEST(Runner, WithoutAStoryTheRunIsTheSameRun) {
  for (const char* name : {"redlock-workload", "gc-pause-after-acquire-fenced"}) {
    const Scenario scenario =
        parse_scenario_file(std::string(REDLOCK_SOURCE_DIR) + "/scenarios/" + name + ".json");
    const ScenarioResult told = run_scenario(scenario, registry_lock_factory());
    const ScenarioResult untold =
        run_scenario(scenario, registry_lock_factory(), RunOptions{.record_story = false});
    EXPECT_FALSE(told.story.empty());
    EXPECT_TRUE(untold.story.empty());
    EXPECT_EQ(untold.trace_digest, told.trace_digest);
    expect_same_run(untold, told);
    ASSERT_EQ(untold.history.grants().size(), told.history.grants().size());
    for (std::size_t i = 0; i < told.history.grants().size(); ++i) {
      EXPECT_EQ(untold.history.grants()[i].token, told.history.grants()[i].token);
      EXPECT_EQ(untold.history.grants()[i].granted_at, told.history.grants()[i].granted_at);
      EXPECT_EQ(untold.history.grants()[i].ended_at, told.history.grants()[i].ended_at);
    }
  }
}

// An expected overlap matches within the tolerance the judge is given: 5 ms in the simulator,
// the agreement tolerance for a real run, whose grant lands a few milliseconds late.
TEST(Runner, JudgeMatchesAnExpectedOverlapWithinItsTolerance) {
  Scenario scenario;
  scenario.expect.mutual_exclusion = "violated";
  scenario.expect.overlap = std::pair<int64_t, int64_t>{2050, 9898};
  ScenarioResult result;
  result.mutual_exclusion = Verdict::violated;
  result.violations.push_back(Violation{.checker = "mutual_exclusion",
                                        .kind = "overlap",
                                        .start = Instant::from_ms(2061),
                                        .end = Instant::from_ms(9898)});
  judge(scenario, result);
  EXPECT_FALSE(result.expectations_met);
  ASSERT_EQ(result.expectation_failures.size(), 1u);
  EXPECT_NE(result.expectation_failures[0].find("within 5 ms, got [2061, 9898)"),
            std::string::npos);
  result.expectation_failures.clear();
  judge(scenario, result, 25);
  EXPECT_TRUE(result.expectations_met);
}

// A cut that began before the run (S15 variant b, F13): R2, the preferred replica, has been cut
// off from M since -120000 ms, so its link has been down since -60000 ms (the cut's start plus
// repl-timeout), Sentinel finds it ineligible and promotes R1, which has A's key:
// MX holds. The same file with the cut beginning at 0 promotes R2 (it still reads as connected)
// and B's grant overlaps A's. The story tells the cut at 0 ms and says since when.
TEST(Runner, ACutThatBeganBeforeTheRunMakesTheReplicaIneligible) {
  const Scenario before = parse_scenario_file(std::string(REDLOCK_SOURCE_DIR) +
                                              "/scenarios/stale-replica-not-promoted.json");
  ASSERT_EQ(before.faults.front().at_ms, -120'000);
  const ScenarioResult backdated = run_scenario(before, registry_lock_factory());
  EXPECT_EQ(backdated.mutual_exclusion, Verdict::holds);
  const auto line = std::find_if(backdated.story.begin(), backdated.story.end(),
                                 [](const StoryEvent& e) { return e.kind == StoryKind::fault; });
  ASSERT_NE(line, backdated.story.end());
  EXPECT_EQ(line->at, Instant::zero());
  EXPECT_EQ(line->text, "is cut off from M since -120000 ms");
  Scenario at_zero = before;
  at_zero.faults.front().at_ms = 0;
  EXPECT_EQ(run_scenario(at_zero, registry_lock_factory()).mutual_exclusion, Verdict::violated);
}

// A cut that began 1 ms before the run is the same silent cut as one at 0: at 3000 ms the
// replica and its master print the same INFO (the replica still up, the master still listing it;
// the shrinker halving -1 to 0 crosses no jump). A cut 1 ms before the run that repl-timeout
// could not yet reveal is no different from one that did not begin yet.
TEST(Runner, ACutOneMillisecondBeforeTheRunReadsAsACutAtZero) {
  const auto text = [](int64_t at_ms) {
    return R"({"name": "cut-minus-one", "nodes": [{"name": "M"},
      {"name": "R", "role": "replica", "replica_of": "M"}],
      "network": {"delay": {"kind": "fixed", "ms": 1}},
      "clients": [{"name": "C", "profile": "single-instance", "nodes": ["M"], "steps": [
        {"do": "command", "at_ms": 3000, "node": "R", "args": ["INFO", "replication"]},
        {"do": "command", "at_ms": 3010, "node": "M", "args": ["INFO", "replication"]}]}],
      "faults": [{"kind": "partition", "at_ms": )" +
           std::to_string(at_ms) + R"(, "sides": [["M"], ["R"]]}],
      "limits": {"duration_ms": 4000}})";
  };
  const auto replies = [&](int64_t at_ms) {
    const Scenario scenario = parse_scenario_text(text(at_ms), "cut.json");
    std::vector<std::string> out;
    for (const CommandReplyRecord& reply : run_scenario(scenario, registry_lock_factory()).replies)
      out.push_back(reply.reply);
    return out;
  };
  const std::vector<std::string> before = replies(-1);
  ASSERT_EQ(before.size(), 2u);
  EXPECT_NE(before[0].find("master_link_status:up"), std::string::npos) << before[0];
  EXPECT_NE(before[1].find("connected_slaves:1"), std::string::npos) << before[1];
  EXPECT_EQ(before, replies(0));
}

}  // namespace
}  // namespace redlock_sim
