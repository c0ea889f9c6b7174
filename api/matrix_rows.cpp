#include "api/matrix_rows.hpp"

#include <atomic>
#include <filesystem>

#include "api/exploration.hpp"
#include "api/lock_wiring.hpp"

namespace redlock_sim {

Scenario matrix_row_base(const LockEntry& entry) {
  MatrixTopology topology{.multi_node = entry.multi_node,
                          .replicas = accepts(entry, "replicas"),
                          .counter = accepts(entry, "token_source"),
                          .fencing_tokens = entry.fencing_tokens};
  // Locks whose point is having no expiry keep their default.
  const bool no_ttl_is_the_point = entry.name == "zoo-no-ttl" || entry.name == "redis-py-lock";
  if (accepts(entry, "ttl_ms") && !no_ttl_is_the_point) topology.params["ttl_ms"] = int64_t{2000};
  if (accepts(entry, "lease_ms")) topology.params["lease_ms"] = int64_t{2000};
  // RFencedLock honours a lease only through tryLockAndGetToken(wait, lease): lockAndGetToken
  // ignores it (the watchdog keeps the key), so the row waits as long as the run lasts instead.
  if (entry.name == "redisson-fencedlock") topology.params["wait_time_ms"] = int64_t{6000};
  return matrix_base(entry.name, topology);
}

void run_matrix_cells(std::vector<MatrixCellJob>& cells, uint32_t seeds, const LockFactory& factory,
                      const RunWorkers& workers, unsigned jobs,
                      const std::function<void()>& on_done) {
  std::atomic<std::size_t> next{0};
  auto worker = [&] {
    for (std::size_t i = next.fetch_add(1); i < cells.size(); i = next.fetch_add(1)) {
      MatrixCellJob& job = cells[i];
      job.cell = run_matrix_cell(*job.base, *job.lock, *job.column, seeds, factory, job.bounds);
      if (on_done) on_done();
    }
  };
  workers(jobs, worker);
}

void write_matrix_counterexample(MatrixCellJob& job, const std::string& dir,
                                 const std::string& link_prefix, const LockFactory& factory,
                                 const std::string& program) {
  const bool mx = job.cell.first_mx_seed != 0;
  const uint64_t seed = mx ? job.cell.first_mx_seed : job.cell.first_rs_seed;
  if (seed == 0) return;
  const ExploreConfig config = matrix_config(*job.column, job.bounds);
  const Scenario failing = scenario_for_seed(*job.base, seed, config);
  ShrinkResult shrunk = shrink_scenario(failing, mx ? "mutual_exclusion" : "resource_safety",
                                        factory, ShrinkOptions{.runs_max = 400});
  const std::string stem = *job.lock + "__" + job.column->name;
  shrunk.scenario.name = *job.lock + "-" + job.column->name;
  shrunk.scenario.description = "Shrunk by redlock-sim matrix: " + *job.lock + " under " +
                                job.column->description + ", seed " + std::to_string(seed) + ".";
  job.cell.counterexample = link_prefix + stem + ".json";
  // Beside it, what `redlock-sim run` shows for it, as explore writes for a finding: the JSON
  // result, the story and the HTML report (whose reproduce line names this file).
  write_counterexample(shrunk.scenario, dir, stem, factory, program);
}

std::vector<MatrixCell> matrix_row(const Scenario& base, const std::string& lock,
                                   const std::vector<MatrixColumn>& columns, uint32_t seeds,
                                   const LockFactory& factory, const RunWorkers& workers,
                                   unsigned jobs) {
  std::vector<MatrixCellJob> cells;
  for (const MatrixColumn& column : columns)
    cells.push_back(MatrixCellJob{.lock = &lock, .base = &base, .column = &column});
  run_matrix_cells(cells, seeds, factory, workers, jobs);
  std::vector<MatrixCell> row;
  for (MatrixCellJob& job : cells)
    row.push_back(std::move(job.cell));
  return row;
}

}  // namespace redlock_sim
