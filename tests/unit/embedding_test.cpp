// The embedding API (api/): a registered lock is found, checked and built like a registry lock;
// the library's calls give the same results with one worker inline as on a pool of threads.
#include <gtest/gtest.h>

#include <thread>

#include "api/embed.hpp"
#include "api/explore_report.hpp"
#include "api/matrix_report.hpp"

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

// A run of seeds split in two shards and merged through the library gives the run's totals and
// findings, and findings.json, as the one run does (what `explore --shard` + `merge` rely on).
TEST(Embedding, ExploreShardsMergeToTheWholeRun) {
  const Scenario base = load_scenario_file(workload);
  ExploreConfig config;
  config.classes = {FaultClass::client_pause, FaultClass::message_delay};
  const LockFactory factory = registry_lock_factory();
  const Explored whole = explore_seeds(base, config, {.start = 1, .count = 40}, factory);
  const Explored first = explore_seeds(base, config, {.start = 1, .count = 20}, factory);
  const Explored second = explore_seeds(base, config, {.start = 21, .count = 20}, factory);
  std::string error;
  const std::optional<MergedExploration> merged = merge_shard_results(
      base, {shard_result_json(base, first, 1), shard_result_json(base, second, 21)},
      {"shard-0", "shard-1"}, 1, 40, error);
  ASSERT_TRUE(merged.has_value()) << error;
  const std::vector<Finding> findings = collect_findings(base, whole.violations);
  ASSERT_FALSE(findings.empty());
  ASSERT_EQ(merged->findings.size(), findings.size());
  for (std::size_t i = 0; i < findings.size(); ++i) {
    EXPECT_EQ(merged->findings[i].signature, findings[i].signature);
    EXPECT_EQ(merged->findings[i].first_seed, findings[i].first_seed);
    EXPECT_EQ(merged->findings[i].occurrences, findings[i].occurrences);
  }
  const std::vector<FindingReport> reports =
      report_findings(base, config, findings, 1, 100, factory);
  const ExploreSettings settings{.base_file = workload};
  EXPECT_EQ(findings_summary(base, config, settings, merged->explored, reports, false),
            findings_summary(base, config, settings, whole, reports, false));
  ASSERT_TRUE(reports[0].shrunk.has_value());
  EXPECT_EQ(reports[0].stem, "finding-1-" + findings[0].checker);
  // A shard that ran other seeds than its block is refused, naming it.
  EXPECT_FALSE(merge_shard_results(
                   base, {shard_result_json(base, second, 21), shard_result_json(base, first, 1)},
                   {"shard-0", "shard-1"}, 1, 40, error)
                   .has_value());
  EXPECT_NE(error.find("shard-0 ran other seeds than shard 0/2"), std::string::npos) << error;
}

// A matrix built through the library: its rows' cells in order, its shards merged back to the
// same cells, and its JSON and Markdown name every cell.
TEST(Embedding, MatrixShardsMergeAndReport) {
  std::vector<MatrixRow> rows;
  for (const char* lock : {"redlock", "single-instance"}) {
    const LockEntry& entry = *find_lock_entry(lock);
    rows.push_back(MatrixRow{entry.name, lock_kind_name(entry.kind), matrix_row_base(entry)});
  }
  std::vector<const MatrixColumn*> columns;
  for (const MatrixColumn& column : matrix_columns()) {
    if (column.name == "client-pause" || column.name == "clock-jump") columns.push_back(&column);
  }
  const LockFactory factory = registry_lock_factory();
  std::vector<MatrixCellJob> whole = matrix_jobs(rows, columns, {});
  ASSERT_EQ(whole.size(), 4u);
  run_matrix_cells(whole, 3, factory);
  std::vector<MatrixCellJob> merged = matrix_jobs(rows, columns, {});
  std::vector<nlohmann::json> results;
  for (uint64_t k = 0; k < 2; ++k) {
    std::vector<std::size_t> indexes;
    std::vector<MatrixCellJob> mine = matrix_shard_jobs(merged, {.index = k, .count = 2}, indexes);
    run_matrix_cells(mine, 3, factory);
    results.push_back(matrix_shard_result(mine, indexes));
  }
  std::string error;
  ASSERT_TRUE(merge_matrix_shards(results, {"a", "b"}, merged, error)) << error;
  EXPECT_EQ(matrix_json(merged, 3).dump(), matrix_json(whole, 3).dump());
  const std::string markdown =
      matrix_markdown(whole, rows, columns, 3, "", "base.json",
                      [](const std::string&) { return std::string("not validated"); });
  EXPECT_NE(markdown.find("| redlock | family |"), std::string::npos) << markdown;
  EXPECT_NE(markdown.find("| single-instance | family |"), std::string::npos) << markdown;
  // Shard results handed in the wrong order are not this matrix's.
  std::vector<MatrixCellJob> swapped = matrix_jobs(rows, columns, {});
  EXPECT_FALSE(merge_matrix_shards({results[1], results[0]}, {"a", "b"}, swapped, error));
  EXPECT_NE(error.find("a: not a shard of this matrix"), std::string::npos) << error;
}

}  // namespace
}  // namespace redlock_sim
