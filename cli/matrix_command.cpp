// `redlock-sim matrix`: every lock of the registry against every fault column, with violation
// rates over N seeds, a shrunk counterexample per violated cell, and the check against the
// public catalogue's verdicts. Prints a terminal table; writes Markdown and JSON on request.
#include <unistd.h>
#include <algorithm>
#include <atomic>
#include <boost/program_options.hpp>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <nlohmann/json.hpp>
#include <optional>

#include "api/lock_wiring.hpp"
#include "api/matrix_report.hpp"
#include "cli/bound_flags.hpp"
#include "cli/command.hpp"
#include "cli/options.hpp"
#include "cli/real_wiring.hpp"
#include "cli/shard.hpp"
#include "cli/worker_pool.hpp"
#include "lock_impls/registry.hpp"
#include "scenarios/parser.hpp"

namespace redlock_sim::cli {
namespace {

namespace po = boost::program_options;

using Job = MatrixCellJob;

void run_jobs(std::vector<Job>& jobs, uint32_t seeds, unsigned threads, bool quiet) {
  std::atomic<std::size_t> done{0};
  run_matrix_cells(jobs, seeds, registry_lock_factory(), worker_pool(), threads, [&] {
    if (!quiet) std::fprintf(stderr, "\r  cells %zu/%zu   ", ++done, jobs.size());
  });
  if (!quiet) std::fprintf(stderr, "\n");
}

// A shard of the matrix: runs the cells it owns (round robin over rows x columns, so each shard
// gets a slice of every row) and writes their counts to OUT/shard.json; exit 0 when written
// (the verdict is the merge's).
int run_shard(const std::vector<std::string>& arguments, const nlohmann::json& settings,
              const Shard& shard, const std::vector<Job>& all, uint32_t seeds, unsigned threads,
              bool quiet, const std::string& out_dir) {
  std::vector<std::size_t> indexes;
  std::vector<Job> mine = matrix_shard_jobs(all, shard, indexes);
  run_jobs(mine, seeds, threads, quiet);
  if (!write_shard_file(out_dir, "matrix", arguments, settings, shard,
                        matrix_shard_result(mine, indexes))) {
    return bad_input("matrix: cannot write to " + out_dir);
  }
  std::printf("shard %s: %zu of %zu cell(s) run; merge the shards with 'redlock-sim merge'\n",
              shard_text(shard).c_str(), mine.size(), all.size());
  return exit_ok;
}

// Narrows `items` (parallel to `names`) to the comma-separated names in `flag`, in that order;
// an unknown name is bad input. An empty flag keeps them all.
template <typename T>
std::optional<int> choose(const std::string& flag, const std::string& what,
                          const std::vector<std::string>& names, const char* listed_by,
                          std::vector<const T*>& items) {
  if (flag.empty()) return std::nullopt;
  std::vector<const T*> chosen;
  for (const std::string& name : split_list(flag)) {
    const auto at = std::find(names.begin(), names.end(), name);
    if (at == names.end()) {
      return bad_input("matrix: unknown " + what + " '" + name + "'" +
                       name_hint(name, names, listed_by));
    }
    const T* item = items[static_cast<std::size_t>(at - names.begin())];
    if (std::find(chosen.begin(), chosen.end(), item) == chosen.end()) chosen.push_back(item);
  }
  if (chosen.empty()) return bad_input("matrix: --" + what + "s names no " + what);
  items = chosen;
  return std::nullopt;
}

// The terminal table, with whole names: a column or row is as wide as its name needs.
void print_table(const std::vector<MatrixRow>& rows,
                 const std::vector<const MatrixColumn*>& columns, const std::vector<Job>& jobs,
                 uint32_t seeds) {
  int lock_width = 28;
  for (const MatrixRow& row : rows)
    lock_width = std::max(lock_width, static_cast<int>(row.name.size()));
  std::printf("%-*s", lock_width, "lock");
  for (const MatrixColumn* c : columns)
    std::printf(" %-*s", std::max(10, static_cast<int>(c->name.size())), c->name.c_str());
  std::printf("\n");
  std::size_t k = 0;
  for (const MatrixRow& row : rows) {
    std::printf("%-*s", lock_width, row.name.c_str());
    for (std::size_t c = 0; c < columns.size(); ++c) {
      std::printf(" %-*s", std::max(10, static_cast<int>(columns[c]->name.size())),
                  matrix_cell_text(jobs[k++].cell, false).c_str());
    }
    std::printf("\n");
  }
  std::printf(
      "(. holds; - never acquired; Mk / Rk / Lk: mutual exclusion / resource safety / liveness "
      "violated in k of %u seeds)\n",
      seeds);
}

// The catalogue's rare cells (S10's restart, S04b's client clock) violate in 1-6 of 200 seeds:
// fewer seeds read them as "holds" and the comparison would cry wolf.
constexpr uint32_t catalogue_seeds_min = 200;

// The whole command; `merge` (not null) when finishing a sharded run from its shards instead of
// running cells.
int matrix_main(const std::vector<std::string>& arguments, const MergeRequest* merge) {
  po::options_description options("redlock-sim matrix [options]");
  uint32_t seeds = 20;
  unsigned jobs_count = 1;
  std::string locks_flag;
  std::string columns_flag;
  std::string out_dir;
  std::string markdown_path;
  std::string json_path;
  std::string link_prefix;
  std::string base_file;
  std::string shard_flag;
  options.add_options()("help,h", "show this help")(
      "base", po::value<std::string>(&base_file),
      "your scenario FILE instead of the standard workload: one row (or, with --locks, one row "
      "per lock, each run by every client of FILE); exit 1 if any cell is violated")(
      "seeds", po::value<uint32_t>(&seeds)->default_value(20), "seeds per cell")(
      "jobs,j", po::value<unsigned>(&jobs_count)->default_value(1), "parallel workers")(
      "locks", po::value<std::string>(&locks_flag), "comma-separated locks (default: all)")(
      "columns", po::value<std::string>(&columns_flag), "comma-separated columns (default: all)")(
      "out", po::value<std::string>(&out_dir), "write each violated cell's shrunk scenario here")(
      "link-prefix", po::value<std::string>(&link_prefix), "path prefix of the links in Markdown")(
      "markdown", po::value<std::string>(&markdown_path), "write the matrix as Markdown")(
      "json", po::value<std::string>(&json_path), "write the matrix as JSON")(
      "catalogue",
      "compare with the catalogue's verdicts below 200 seeds too (at 200 and more "
      "it always does)")("quiet,q", "no progress line")(
      "shard", po::value<std::string>(&shard_flag),
      "run only shard K of N (0-based) of the cells and write the partial result to --out; "
      "'redlock-sim merge' combines the shards (docs/scale-out.md)");
  // The same bounds as explore's (a column turns all its classes on, with its own count).
  ExploreBounds bounds;
  options.add(bound_flags(bounds));
  po::variables_map values;
  try {
    parse_flags(arguments, options, values);
  } catch (const po::error& error) {
    return bad_input(std::string("matrix: ") + error.what());
  }
  if (values.count("help")) {
    std::cout
        << "Runs every lock (families, profiles, zoo) against every fault column and\n"
           "prints the violation rates. Exit 0; 1 if it disagrees with the catalogue\n"
           "(compared from 200 seeds, or with --catalogue).\n"
           "With --base FILE, runs your scenario instead (exit 1 if any cell is violated).\n\n"
        << options << "\nColumns:\n";
    for (const MatrixColumn& c : matrix_columns())
      std::printf("  %-22s %s\n", c.name.c_str(), c.description.c_str());
    return exit_ok;
  }
  if (seeds == 0 || seeds > 100'000) return bad_input("matrix: --seeds must be in [1, 100000]");
  if (jobs_count == 0 || jobs_count > 256) return bad_input("matrix: --jobs must be in [1, 256]");
  if (auto failed = check_bound_flags("matrix", bounds)) return *failed;
  std::optional<Shard> shard;
  if (merge == nullptr && values.count("shard")) {
    shard = parse_shard(shard_flag);
    if (!shard) {
      return bad_input("matrix: --shard must be K/N with 0 <= K < N <= 1000000, e.g. 0/4");
    }
    if (out_dir.empty()) return bad_input("matrix: --shard needs --out DIR for its partial result");
  }
  if (!markdown_path.empty()) {
    if (auto failed = check_output_file("matrix", "--markdown", markdown_path)) return *failed;
  }
  if (!json_path.empty()) {
    if (auto failed = check_output_file("matrix", "--json", json_path)) return *failed;
  }
  // Every lock and column by default; else the named ones, in the order given.
  std::vector<const LockEntry*> locks;
  std::vector<std::string> lock_names;
  for (const LockEntry& entry : lock_entries()) {
    locks.push_back(&entry);
    lock_names.push_back(entry.name);
  }
  std::vector<const MatrixColumn*> columns;
  std::vector<std::string> column_names;
  for (const MatrixColumn& c : matrix_columns()) {
    columns.push_back(&c);
    column_names.push_back(c.name);
  }
  if (auto failed = choose(locks_flag, "lock", lock_names, "'redlock-sim list'", locks)) {
    return *failed;
  }
  if (auto failed =
          choose(columns_flag, "column", column_names, "'redlock-sim matrix --help'", columns)) {
    return *failed;
  }
  std::vector<MatrixRow> rows;
  if (base_file.empty()) {
    for (const LockEntry* lock : locks)
      rows.push_back(MatrixRow{lock->name, lock_kind_name(lock->kind), matrix_row_base(*lock)});
  } else {
    const std::optional<Scenario> loaded = load_scenario(base_file, registry_profile_check());
    if (!loaded) return exit_bad_input;
    const Scenario& base = *loaded;
    if (locks_flag.empty()) {
      rows.push_back(MatrixRow{base.name, "your scenario", base});
    } else {
      for (const LockEntry* lock : locks) {
        std::string error;
        std::optional<Scenario> swapped = swap_lock(base, *lock, error);
        if (!swapped) {
          return bad_input("matrix: " + lock->name + " cannot run " + base_file + ": " + error);
        }
        rows.push_back(MatrixRow{lock->name, lock_kind_name(lock->kind), *swapped});
      }
    }
  }
  nlohmann::json settings = shard_settings(values, {"shard", "out", "jobs", "quiet", "help"});
  if (!base_file.empty()) settings["base_digest"] = file_digest(base_file).value_or("");
  if (merge != nullptr) {
    std::string now, then;
    const std::string key = first_difference(settings, merge->settings, now, then);
    if (!key.empty()) {
      return bad_input("merge: the shards ran with " + key + " '" + then + "', which is now '" +
                       now + "'" + (base_file.empty() ? "" : " (was " + base_file + " changed?)"));
    }
    out_dir = merge->out_dir;
    jobs_count = merge->jobs;
  }
  // Created last, once everything else is known to be right.
  if (!out_dir.empty()) {
    if (auto failed = prepare_out_dir("matrix", out_dir)) return *failed;
  }
  // Links in the Markdown lead from the Markdown file's folder to --out, wherever each is.
  if (!values.count("link-prefix") && !out_dir.empty() && !markdown_path.empty()) {
    std::filesystem::path from = std::filesystem::path(markdown_path).parent_path();
    if (from.empty()) from = ".";
    const std::string relative = std::filesystem::relative(out_dir, from).generic_string();
    link_prefix = relative.empty() || relative == "." ? "" : relative + "/";
  }
  std::vector<Job> jobs = matrix_jobs(rows, columns, bounds);
  // The progress line is for a person watching (like explore's): not in a log or a pipe.
  const bool quiet =
      (merge != nullptr ? merge->quiet : values.count("quiet") != 0) || isatty(STDERR_FILENO) == 0;
  if (merge != nullptr) {
    std::string error;
    if (!merge_matrix_shards(merge->results, merge->sources, jobs, error)) {
      return bad_input("merge: " + error);
    }
  } else if (shard) {
    return run_shard(arguments, settings, *shard, jobs, seeds, jobs_count, quiet, out_dir);
  } else {
    run_jobs(jobs, seeds, jobs_count, quiet);
  }
  if (!out_dir.empty()) {
    write_matrix_counterexamples(jobs, out_dir, link_prefix, registry_lock_factory(),
                                 program_name(), worker_pool(), jobs_count);
  }

  print_table(rows, columns, jobs, seeds);

  // Agreement with the catalogue, for the cells that were run.
  const bool compare = values.count("catalogue") != 0 || seeds >= catalogue_seeds_min;
  CatalogueAgreement agreement = compare ? catalogue_agreement(jobs, seeds) : CatalogueAgreement{};
  const int disagreements = agreement.disagreements;
  uint32_t violated_cells = 0;
  for (const Job& job : jobs)
    violated_cells += job.cell.mx_violations > 0 || job.cell.rs_violations > 0 ? 1 : 0;
  if (base_file.empty()) {
    if (!compare) {
      agreement.table = "Not compared: " + std::to_string(seeds) +
                        " seeds per cell; the catalogue's rare cells need " +
                        std::to_string(catalogue_seeds_min) + " (or `--catalogue`).\n";
      std::printf(
          "\nagreement with the catalogue: not compared at %u seeds (its rare cells need %u: "
          "--seeds %u, or --catalogue to compare anyway)\n",
          seeds, catalogue_seeds_min, catalogue_seeds_min);
    } else {
      std::printf("\nagreement with the catalogue: %s\n", disagreements == 0
                                                              ? "every checked cell agrees"
                                                              : "DISAGREEMENTS (see Markdown)");
    }
  } else {
    std::printf("\n%u of %zu cell(s) violated\n", violated_cells, jobs.size());
    std::string idle;
    for (std::size_t r = 0; r < rows.size(); ++r) {
      bool granted = false;
      for (std::size_t c = 0; c < columns.size(); ++c)
        granted = granted || jobs[r * columns.size() + c].cell.grants > 0;
      if (!granted) idle += (idle.empty() ? "" : ", ") + rows[r].name;
    }
    if (!idle.empty()) {
      std::printf(
          "never acquired the lock, so nothing was checked: %s (does the scenario give "
          "them the replicas or counter they need?)\n",
          idle.c_str());
    }
  }
  if (!markdown_path.empty() &&
      !write_file(markdown_path, matrix_markdown(jobs, rows, columns, seeds, agreement.table,
                                                 base_file, validation_status))) {
    return bad_input("matrix: cannot write " + markdown_path);
  }
  if (!json_path.empty() && !write_file(json_path, matrix_json(jobs, seeds).dump(2) + "\n")) {
    return bad_input("matrix: cannot write " + json_path);
  }
  if (!base_file.empty()) return violated_cells == 0 ? exit_ok : exit_failed;
  return disagreements == 0 ? exit_ok : exit_failed;
}

int run_matrix(const std::vector<std::string>& arguments) {
  return matrix_main(arguments, nullptr);
}

int merge_matrix(const MergeRequest& request) {
  return matrix_main(request.arguments, &request);
}

const MergeRegistrar merge_registrar("matrix", &merge_matrix);

const Registrar registrar({"matrix", "every lock against every fault column: the safety matrix",
                           &run_matrix});

}  // namespace
}  // namespace redlock_sim::cli
