// What `redlock-sim explore` does between its flags and its printing, as library calls: a shard's
// partial result and the merge of the shards' results into one run, the findings shrunk and
// described (which classes the minimal run needs, which earlier finding it repeats), findings.json
// and the counterexample files. The CLI parses flags, prints, and lends its worker pool.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "api/exploration.hpp"

namespace redlock_sim {

// The classes' names, in the order given.
nlohmann::json fault_class_names(const std::vector<FaultClass>& classes);

// A shard's partial result: its totals and its findings (checker, the classes needed, first seed,
// occurrences) in the order they first appear; enough to merge, order and shrink the findings
// exactly as one machine does. Its size grows with the distinct findings, not with the seeds or
// the violating seeds.
nlohmann::json shard_result_json(const Scenario& base, const Explored& explored,
                                 uint64_t first_seed);

// The shards' partial results (`results[k]` read from `sources[k]`), in shard order, as one run
// of seeds [seed_start, seed_start + count) with its findings in order of first appearance: each
// shard must have run exactly its block (sim/explore/shard.hpp). Nothing, and `error`, when one
// did not or is not an explore shard's result.
struct MergedExploration {
  Explored explored;
  std::vector<Finding> findings;
};
std::optional<MergedExploration> merge_shard_results(const Scenario& base,
                                                     const std::vector<nlohmann::json>& results,
                                                     const std::vector<std::string>& sources,
                                                     uint64_t seed_start, uint64_t count,
                                                     std::string& error);

// One finding as explore reports it.
struct FindingReport {
  std::size_t number = 0;  // 1-based, in finding order
  Finding finding;
  std::optional<ShrunkFinding> shrunk;      // when it was chosen for shrinking
  std::vector<FaultClass> minimal_classes;  // the shrunk scenario's (with the base's own faults)
  std::string minimal_classes_text;         // their names, space-separated
  std::optional<std::size_t> same_as;       // an earlier finding that shrank to the same shape
  std::string stem;                         // its files: finding-N-CHECKER.*
};

// Shrinks up to `shrink_max` findings (shrink_findings) and describes every finding. Shrinking
// also shortens and moves faults, so the minimal run may need fewer classes than the seed did;
// `same_as` names the first finding that shrank to the same checker and classes.
std::vector<FindingReport> report_findings(const Scenario& base, const ExploreConfig& config,
                                           const std::vector<Finding>& findings,
                                           std::size_t shrink_max, uint32_t runs_max,
                                           const LockFactory& factory,
                                           const RunWorkers& workers = run_workers_inline,
                                           unsigned jobs = 1);

// What findings.json records besides the run's results: where the seeds came from and the flags
// that shaped them.
struct ExploreSettings {
  std::string base_file;
  uint64_t seed_start = 1;
  std::string group_by = "involved";
  std::string class_on = "1/2";  // as given (N/D)
};

// findings.json: what an exploration found, for CI and scripts. No timings, so the same flags
// give the same bytes whatever the number of workers. `with_files`: each shrunk finding names its
// counterexample file.
nlohmann::json findings_summary(const Scenario& base, const ExploreConfig& config,
                                const ExploreSettings& settings, const Explored& explored,
                                const std::vector<FindingReport>& reports, bool with_files);

// Writes each shrunk finding's counterexample (write_counterexample, DIR/STEM.*); false when a
// file cannot be written.
bool write_finding_counterexamples(std::vector<FindingReport>& reports, const std::string& dir,
                                   const LockFactory& factory, const std::string& program);

// Writes DIR/findings.json; false when it cannot.
bool write_findings_summary(const std::string& dir, const nlohmann::json& summary);

}  // namespace redlock_sim
