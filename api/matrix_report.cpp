#include "api/matrix_report.hpp"

#include <atomic>
#include <filesystem>
#include <stdexcept>

#include "reports/tool_version.hpp"

namespace redlock_sim {

namespace {

// A cell's counts, as a shard hands them to the merge.
nlohmann::json cell_json(std::size_t index, const MatrixCell& c) {
  return {{"index", index},
          {"lock", c.lock},
          {"column", c.column},
          {"seeds", c.seeds},
          {"mutual_exclusion_violations", c.mx_violations},
          {"resource_safety_violations", c.rs_violations},
          {"liveness_violations", c.lv_violations},
          {"grants", c.grants},
          {"first_mx_seed", c.first_mx_seed},
          {"first_rs_seed", c.first_rs_seed}};
}

}  // namespace

std::vector<MatrixCellJob> matrix_jobs(const std::vector<MatrixRow>& rows,
                                       const std::vector<const MatrixColumn*>& columns,
                                       const ExploreBounds& bounds) {
  std::vector<MatrixCellJob> jobs;
  for (const MatrixRow& row : rows) {
    for (const MatrixColumn* column : columns) {
      jobs.push_back(
          MatrixCellJob{.lock = &row.name, .base = &row.base, .column = column, .bounds = bounds});
    }
  }
  return jobs;
}

std::vector<MatrixCellJob> matrix_shard_jobs(const std::vector<MatrixCellJob>& all,
                                             const Shard& shard,
                                             std::vector<std::size_t>& indexes) {
  std::vector<MatrixCellJob> mine;
  indexes.clear();
  for (std::size_t i = 0; i < all.size(); ++i) {
    if (!shard_owns(i, shard)) continue;
    mine.push_back(all[i]);
    indexes.push_back(i);
  }
  return mine;
}

nlohmann::json matrix_shard_result(const std::vector<MatrixCellJob>& mine,
                                   const std::vector<std::size_t>& indexes) {
  nlohmann::json cells = nlohmann::json::array();
  for (std::size_t j = 0; j < mine.size(); ++j)
    cells.push_back(cell_json(indexes[j], mine[j].cell));
  return {{"cells", cells}};
}

bool merge_matrix_shards(const std::vector<nlohmann::json>& results,
                         const std::vector<std::string>& sources, std::vector<MatrixCellJob>& jobs,
                         std::string& error) {
  const uint64_t shard_count = results.size();
  for (uint64_t k = 0; k < shard_count; ++k) {
    const Shard shard{.index = k, .count = shard_count};
    std::size_t expected = 0;
    for (std::size_t i = 0; i < jobs.size(); ++i)
      expected += shard_owns(i, shard) ? 1 : 0;
    try {
      const nlohmann::json& cells = results[k].at("cells");
      if (cells.size() != expected) throw std::runtime_error("not the cells of its share");
      for (const nlohmann::json& cell : cells) {
        const std::size_t i = cell.at("index").get<std::size_t>();
        if (i >= jobs.size() || !shard_owns(i, shard) ||
            cell.at("lock").get<std::string>() != *jobs[i].lock ||
            cell.at("column").get<std::string>() != jobs[i].column->name) {
          throw std::runtime_error("cell " + std::to_string(i) + " is not this matrix's");
        }
        MatrixCell& c = jobs[i].cell;
        c.lock = *jobs[i].lock;
        c.column = jobs[i].column->name;
        c.seeds = cell.at("seeds").get<uint32_t>();
        c.mx_violations = cell.at("mutual_exclusion_violations").get<uint32_t>();
        c.rs_violations = cell.at("resource_safety_violations").get<uint32_t>();
        c.lv_violations = cell.at("liveness_violations").get<uint32_t>();
        c.grants = cell.at("grants").get<uint64_t>();
        c.first_mx_seed = cell.at("first_mx_seed").get<uint64_t>();
        c.first_rs_seed = cell.at("first_rs_seed").get<uint64_t>();
      }
    } catch (const std::exception& e) {
      error = sources[k] + ": not a shard of this matrix: " + e.what();
      return false;
    }
  }
  return true;
}

void write_matrix_counterexamples(std::vector<MatrixCellJob>& jobs, const std::string& dir,
                                  const std::string& link_prefix, const LockFactory& factory,
                                  const std::string& program, const RunWorkers& workers,
                                  unsigned jobs_count) {
  std::filesystem::create_directories(dir);
  std::atomic<std::size_t> next{0};
  workers(jobs_count, [&] {
    for (std::size_t i = next.fetch_add(1); i < jobs.size(); i = next.fetch_add(1))
      write_matrix_counterexample(jobs[i], dir, link_prefix, factory, program);
  });
}

std::string matrix_cell_text(const MatrixCell& c, bool markdown) {
  if (c.grants == 0) return markdown ? "never acquired" : "-";
  if (c.mx_violations == 0 && c.rs_violations == 0 && c.lv_violations == 0) {
    return markdown ? "holds" : ".";
  }
  std::string out;
  if (c.mx_violations > 0) {
    out += (markdown ? "MX " : "M") + std::to_string(c.mx_violations) +
           (markdown ? "/" + std::to_string(c.seeds) : "");
  }
  if (c.rs_violations > 0) {
    if (!out.empty()) out += markdown ? ", " : " ";
    out += (markdown ? "RS " : "R") + std::to_string(c.rs_violations) +
           (markdown ? "/" + std::to_string(c.seeds) : "");
  }
  if (c.lv_violations > 0) {  // liveness: a livelock (attempts, nobody holding, gave up)
    if (!out.empty()) out += markdown ? ", " : " ";
    out += (markdown ? "LV " : "L") + std::to_string(c.lv_violations) +
           (markdown ? "/" + std::to_string(c.seeds) : "");
  }
  if (markdown && !c.counterexample.empty()) out = "[" + out + "](" + c.counterexample + ")";
  return out;
}

CatalogueAgreement catalogue_agreement(const std::vector<MatrixCellJob>& jobs, uint32_t seeds) {
  CatalogueAgreement agreement{
      .table =
          "| lock | column | checker | catalogue | matrix | source |\n|---|---|---|---|---|---|\n"};
  for (const CatalogueVerdict& v : catalogue_verdicts()) {
    for (const MatrixCellJob& job : jobs) {
      if (job.cell.lock != v.lock || job.cell.column != v.column) continue;
      const uint32_t count =
          v.checker == "mutual_exclusion" ? job.cell.mx_violations : job.cell.rs_violations;
      const bool agrees = (count > 0) == v.violated;
      agreement.disagreements += agrees ? 0 : 1;
      agreement.table +=
          "| " + v.lock + " | " + v.column + " | " + v.checker + " | " +
          (v.violated ? "violated" : "holds") + " | " +
          (count > 0 ? "violated (" + std::to_string(count) + "/" + std::to_string(seeds) + ")"
                     : "holds") +
          (agrees ? "" : " **DISAGREES**") + " | " + v.source + " |\n";
    }
  }
  return agreement;
}

std::string matrix_markdown(const std::vector<MatrixCellJob>& jobs,
                            const std::vector<MatrixRow>& rows,
                            const std::vector<const MatrixColumn*>& columns, uint32_t seeds,
                            const std::string& agreement, const std::string& base_file,
                            const std::function<std::string(const std::string&)>& profile_status) {
  std::string out = base_file.empty() ? "" : "# Safety matrix of " + base_file + "\n\n";
  if (!base_file.empty()) {
    out += "Generated by `redlock-sim matrix --base " + base_file + " --seeds " +
           std::to_string(seeds) +
           "`. Each cell runs that scenario (its topology, clients and workload, its own faults "
           "included) under the column's faults, all on in every seed, for seeds 1.." +
           std::to_string(seeds) +
           "; with --locks, every client runs the row's lock instead. A cell shows how many "
           "seeds violated mutual exclusion (MX), resource safety (RS) and liveness (LV).\n\n";
  }
  if (base_file.empty())
    out +=
        "# Safety matrix\n\nGenerated by `scripts/safety-matrix.sh` (`redlock-sim matrix --seeds " +
        std::to_string(seeds) +
        "`); do not edit by hand.\n\nEach cell runs the standard workload (three clients looping "
        "with 50, 500 and 1900 ms critical sections on a 2 s lock (the lock's default TTL for "
        "zoo-no-ttl and redis-py-lock, whose point is having none), a fourth holding it 2500 ms "
        "without touching the register, a fifth whose 3000 ms critical section outlasts the TTL, "
        "kept by an extend every 700 ms and the watchdog where the lock has one (a failed "
        "extension abandons the critical section), 6 s; five masters for multi-node locks, one "
        "otherwise) under the column's faults, all on in every seed, for seeds 1.." +
        std::to_string(seeds) +
        ". The register does not fence, except for the locks that hand out fencing tokens "
        "(fenced, redisson-fencedlock): it checks theirs, rejecting an operation whose token is "
        "below the highest it has seen on a read or a write (fence-all). A cell shows how many "
        "seeds violated mutual exclusion (MX), resource safety (RS) and liveness (LV: an "
        "acquisition that gave up while nobody held the lock); a cell with an MX or RS violation "
        "links to its shrunk counterexample (`redlock-sim run` reproduces it).\n\n";
  out += "| lock | kind |";
  for (const MatrixColumn* c : columns)
    out += " " + c->name + " |";
  out += "\n|---|---|";
  for (std::size_t i = 0; i < columns.size(); ++i)
    out += "---|";
  out += "\n";
  std::size_t k = 0;
  for (const MatrixRow& row : rows) {
    std::string kind = row.kind;
    if (kind == "profile") {
      // Whether the row's profile was shown to behave like its library (agree --profiles).
      const std::string status = profile_status(row.name);
      kind += status.rfind("not", 0) == 0 ? " (not validated)" : " (" + status + ")";
    }
    out += "| " + row.name + " | " + kind + " |";
    for (std::size_t c = 0; c < columns.size(); ++c)
      out += " " + matrix_cell_text(jobs[k++].cell, true) + " |";
    out += "\n";
  }
  out += "\n## Columns\n\n";
  for (const MatrixColumn* c : columns)
    out += "- **" + c->name + "**: " + c->description + "\n";
  if (base_file.empty()) out += "\n## Agreement with the public catalogue\n\n" + agreement;
  return out;
}

nlohmann::json matrix_json(const std::vector<MatrixCellJob>& jobs, uint32_t seeds) {
  nlohmann::json cells = nlohmann::json::array();
  for (const MatrixCellJob& job : jobs) {
    cells.push_back({{"lock", job.cell.lock},
                     {"column", job.cell.column},
                     {"seeds", job.cell.seeds},
                     {"mutual_exclusion_violations", job.cell.mx_violations},
                     {"resource_safety_violations", job.cell.rs_violations},
                     {"liveness_violations", job.cell.lv_violations},
                     {"grants", job.cell.grants},
                     {"counterexample", job.cell.counterexample}});
  }
  return nlohmann::json{{"seeds", seeds}, {"cells", cells}, {"tool", tool_json()}};
}

}  // namespace redlock_sim
