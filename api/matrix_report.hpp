// What `redlock-sim matrix` does between its flags and its printing, as library calls: the cells
// of rows x columns, a shard's share of them and the merge of the shards' cells, the shrunk
// counterexample of every violated cell, the agreement with the catalogue's verdicts, and the
// Markdown and JSON reports. The CLI parses flags, prints the terminal table and lends its worker
// pool.
#pragma once

#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "api/matrix_rows.hpp"
#include "sim/explore/shard.hpp"

namespace redlock_sim {

// One row of the matrix: a lock (or the user's scenario) on a base scenario. `kind` is the
// registry's kind (family, profile, zoo) or "your scenario".
struct MatrixRow {
  std::string name;
  std::string kind;
  Scenario base;
};

// The cells of rows x columns, row by row (the order the reports read them in). The jobs point
// into `rows` and `columns`, which must outlive them.
std::vector<MatrixCellJob> matrix_jobs(const std::vector<MatrixRow>& rows,
                                       const std::vector<const MatrixColumn*>& columns,
                                       const ExploreBounds& bounds);

// The cells a shard owns (round robin over rows x columns, so each shard gets a slice of every
// row), and each one's index among all the cells.
std::vector<MatrixCellJob> matrix_shard_jobs(const std::vector<MatrixCellJob>& all,
                                             const Shard& shard, std::vector<std::size_t>& indexes);

// A shard's partial result: its cells' counts, each with its index among all the cells.
nlohmann::json matrix_shard_result(const std::vector<MatrixCellJob>& mine,
                                   const std::vector<std::size_t>& indexes);

// Fills every job's cell from the shards' results (`results[k]` read from `sources[k]`, in shard
// order): shard K must hold exactly the cells it owns of this very matrix. False, and `error`,
// when one does not.
bool merge_matrix_shards(const std::vector<nlohmann::json>& results,
                         const std::vector<std::string>& sources, std::vector<MatrixCellJob>& jobs,
                         std::string& error);

// Shrinks the first violation of each violated cell and writes it under `dir`
// (write_matrix_counterexample), `jobs_count` cells at a time.
void write_matrix_counterexamples(std::vector<MatrixCellJob>& jobs, const std::string& dir,
                                  const std::string& link_prefix, const LockFactory& factory,
                                  const std::string& program,
                                  const RunWorkers& workers = run_workers_inline,
                                  unsigned jobs_count = 1);

// A cell as the terminal table (". M3 R1") or the Markdown ("holds", "[MX 3/20](link)") shows it.
std::string matrix_cell_text(const MatrixCell& cell, bool markdown);

// The cells compared with the catalogue's verdicts (for the cells that were run): a Markdown table
// with one line per verdict, and how many disagree.
struct CatalogueAgreement {
  std::string table;
  int disagreements = 0;
};
CatalogueAgreement catalogue_agreement(const std::vector<MatrixCellJob>& jobs, uint32_t seeds);

// The matrix as Markdown (docs/safety-matrix.md when `base_file` is empty, with `agreement` under
// it); `profile_status` says whether a profile row was validated against its library.
std::string matrix_markdown(const std::vector<MatrixCellJob>& jobs,
                            const std::vector<MatrixRow>& rows,
                            const std::vector<const MatrixColumn*>& columns, uint32_t seeds,
                            const std::string& agreement, const std::string& base_file,
                            const std::function<std::string(const std::string&)>& profile_status);

// The matrix as JSON: the seeds, every cell's counts and counterexample link, the tool.
nlohmann::json matrix_json(const std::vector<MatrixCellJob>& jobs, uint32_t seeds);

}  // namespace redlock_sim
