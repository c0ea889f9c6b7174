// The embedding API (api/): a registered lock is found, checked and built like a registry lock;
// the library's calls give the same results with one worker inline as on a pool of threads.
#include <gtest/gtest.h>

#include <thread>

#include "api/embed.hpp"

namespace redlock_sim {
namespace {

const std::string workload = std::string(REDLOCK_SOURCE_DIR) + "/scenarios/redlock-workload.json";

// The registry's redlock under another name, with redlock's own parameter table.
bool register_test_lock(const std::string& name) {
  return register_lock(LockEntry{.name = name,
                                 .kind = LockKind::profile,
                                 .description = "redlock under another name",
                                 .params = find_lock_entry("redlock")->params,
                                 .make = find_lock_entry("redlock")->make});
}

// A registered lock runs where a scenario names it; names already taken are refused.
TEST(Embedding, RegisteredLockRunsLikeARegistryLock) {
  EXPECT_FALSE(register_test_lock("redlock"));
  ASSERT_TRUE(register_test_lock("embedding-test-redlock"));
  EXPECT_FALSE(register_test_lock("embedding-test-redlock"));
  ASSERT_NE(find_lock_entry("embedding-test-redlock"), nullptr);
  Scenario scenario = load_scenario_file(workload);
  const ScenarioResult theirs = run(scenario);
  for (ClientSpec& client : scenario.clients)
    client.profile = "embedding-test-redlock";
  const ScenarioResult ours = run(scenario);
  EXPECT_EQ(ours.stats.events, theirs.stats.events);
  EXPECT_EQ(ours.stats.grants, theirs.stats.grants);
  EXPECT_EQ(ours.mutual_exclusion, theirs.mutual_exclusion);
  // The profile check reads the registered table: a malformed parameter is named.
  scenario.clients[0].params["ttl_ms"] = std::string("x");
  const auto problem = registry_profile_check()(scenario.clients[0]);
  ASSERT_TRUE(problem.has_value());
  EXPECT_NE(problem->find("ttl_ms"), std::string::npos) << *problem;
}

// explore() finds and shrinks the same findings inline as on two threads.
TEST(Embedding, ExploreIsTheSameInlineAndOnThreads) {
  const Scenario base = load_scenario_file(workload);
  ExploreOptions options{
      .seeds = {.start = 1, .count = 30}, .shrink_max = 1, .shrink_runs_max = 200};
  options.config.classes = {FaultClass::client_pause};
  options.config.bounds.on_numerator = 1;  // pauses in every seed
  options.config.bounds.on_denominator = 1;
  const ExploreReport inline_report = explore(base, options);
  options.seeds.jobs = 2;
  options.workers = [](unsigned count, const std::function<void()>& worker) {
    std::vector<std::thread> threads;
    for (unsigned i = 0; i < count; ++i)
      threads.emplace_back(worker);
    for (std::thread& t : threads)
      t.join();
  };
  const ExploreReport threaded = explore(base, options);
  ASSERT_FALSE(inline_report.findings.empty());
  EXPECT_EQ(threaded.explored.seeds, inline_report.explored.seeds);
  EXPECT_EQ(threaded.explored.events, inline_report.explored.events);
  ASSERT_EQ(threaded.findings.size(), inline_report.findings.size());
  EXPECT_EQ(threaded.findings[0].signature, inline_report.findings[0].signature);
  ASSERT_EQ(threaded.shrunk.size(), 1u);
  EXPECT_EQ(write_scenario(threaded.shrunk[0].shrunk.scenario),
            write_scenario(inline_report.shrunk[0].shrunk.scenario));
}

}  // namespace
}  // namespace redlock_sim
