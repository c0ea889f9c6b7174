// The safety matrix as library calls: a lock's row (its base scenario and its cells under fault
// columns) and the shrunk counterexample of a violated cell. `redlock-sim matrix` and an
// embedding program are both thin users of this.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "api/workers.hpp"
#include "lock_impls/registry.hpp"
#include "sim/explore/matrix.hpp"

namespace redlock_sim {

// The standard workload with the lock's own parameters where it lets us fit the run: a 2 s TTL.
Scenario matrix_row_base(const LockEntry& entry);

// One cell to run: a lock on a base scenario under a column's faults.
struct MatrixCellJob {
  const std::string* lock = nullptr;
  const Scenario* base = nullptr;
  const MatrixColumn* column = nullptr;
  MatrixCell cell;
  ExploreBounds bounds;  // the fault bounds (explore's and matrix's shared bound flags)
};

// Runs every job's cell (seeds 1..seeds), `jobs` at a time; `on_done` (optional) is called
// after each cell, from the worker that ran it.
void run_matrix_cells(std::vector<MatrixCellJob>& cells, uint32_t seeds, const LockFactory& factory,
                      const RunWorkers& workers = run_workers_inline, unsigned jobs = 1,
                      const std::function<void()>& on_done = {});

// Shrinks the first violation of a violated cell (mutual exclusion before resource safety) and
// writes it to DIR/LOCK__COLUMN.json with its result, story and HTML (write_counterexample).
// Sets the cell's counterexample to `link_prefix` + the file name. Nothing when the cell holds.
void write_matrix_counterexample(MatrixCellJob& job, const std::string& dir,
                                 const std::string& link_prefix, const LockFactory& factory,
                                 const std::string& program);

// A lock's whole row of the matrix, one cell per column, in column order.
std::vector<MatrixCell> matrix_row(const Scenario& base, const std::string& lock,
                                   const std::vector<MatrixColumn>& columns, uint32_t seeds,
                                   const LockFactory& factory,
                                   const RunWorkers& workers = run_workers_inline,
                                   unsigned jobs = 1);

}  // namespace redlock_sim
