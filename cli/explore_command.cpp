// `redlock-sim explore BASE.json`: swarm exploration of fault plans over many seeds, parallel
// over seeds (each seed single-threaded and deterministic), violations grouped by signature,
// each distinct one shrunk to a minimal scenario that `redlock-sim run` reproduces.
#include <unistd.h>

#include <algorithm>
#include <boost/program_options.hpp>
#include <chrono>
#include <cstdio>
#include <limits>
#include <nlohmann/json.hpp>

#include "api/explore_report.hpp"
#include "api/lock_wiring.hpp"
#include "cli/bound_flags.hpp"
#include "cli/command.hpp"
#include "cli/options.hpp"
#include "cli/shard.hpp"
#include "cli/worker_pool.hpp"

namespace redlock_sim::cli {
namespace {

namespace po = boost::program_options;
using Clock = std::chrono::steady_clock;

std::string checker_name(const std::string& shorthand) {
  if (shorthand == "mx" || shorthand == "mutual_exclusion") return "mutual_exclusion";
  if (shorthand == "rs" || shorthand == "resource_safety") return "resource_safety";
  if (shorthand == "lv" || shorthand == "liveness") return "liveness";
  return "";
}

// Runs seeds [start, start + count) on `jobs` workers of the pool, with a progress line at a
// terminal.
Explored run_seeds(const Scenario& base, const ExploreConfig& config, uint64_t start,
                   uint64_t count, double time_limit_s, unsigned jobs, bool show_progress,
                   bool attribute) {
  ExploreProgress progress;
  const auto began = Clock::now();
  uint64_t tick = 0;
  const auto print_progress = [&] {
    if (tick++ % 10 != 0) return;
    const double elapsed = std::chrono::duration<double>(Clock::now() - began).count();
    std::fprintf(stderr, "\r  seeds %llu  %.1f seeds/s  violations: mx %llu, rs %llu, lv %llu   ",
                 static_cast<unsigned long long>(progress.done.load()),
                 progress.done.load() / std::max(elapsed, 1e-9),
                 static_cast<unsigned long long>(progress.mx.load()),
                 static_cast<unsigned long long>(progress.rs.load()),
                 static_cast<unsigned long long>(progress.lv.load()));
  };
  Explored explored = explore_seeds(
      base, config,
      SeedRange{.start = start,
                .count = count,
                .time_limit_s = time_limit_s,
                .jobs = jobs,
                .attribute = attribute},
      registry_lock_factory(),
      // Without a progress line one worker is the calling thread: a process that never starts a
      // thread keeps libstdc++'s shared_ptr counts unlocked (`__libc_single_threaded`).
      [&](unsigned workers, const std::function<void()>& worker) {
        if (show_progress)
          run_workers(workers, worker, print_progress);
        else
          run_workers(workers, worker);
      },
      &progress);
  if (show_progress) std::fprintf(stderr, "\n");
  return explored;
}

// The comma-separated names in `flag`, each once, in the order first given.
std::vector<std::string> unique_names(const std::string& flag) {
  std::vector<std::string> out;
  for (const std::string& name : split_list(flag)) {
    if (std::find(out.begin(), out.end(), name) == out.end()) out.push_back(name);
  }
  return out;
}

// Validates the bound flags (shared with matrix) and explore's own two, and reads --class-on N/D
// into the bounds.
std::optional<int> check_bounds(ExploreBounds& bounds, const std::string& class_on) {
  if (auto failed = check_bound_flags("explore", bounds)) return failed;
  if (bounds.faults_per_class_max < 1 || bounds.faults_per_class_max > 16) {
    return bad_input("explore: --faults-per-class must be in [1, 16]");
  }
  unsigned long numerator = 0;
  unsigned long denominator = 0;
  char extra = 0;
  if (std::sscanf(class_on.c_str(), "%lu/%lu%c", &numerator, &denominator, &extra) != 2 ||
      class_on.find_first_of("-+ ") != std::string::npos || numerator < 1 ||
      denominator > 1'000'000 || numerator > denominator) {
    return bad_input("explore: --class-on must be N/D with 1 <= N <= D <= 1000000, e.g. 1/2");
  }
  bounds.on_numerator = static_cast<uint32_t>(numerator);
  bounds.on_denominator = static_cast<uint32_t>(denominator);
  return std::nullopt;
}

// A shard's end: its partial result in OUT/shard.json, and a line saying what it ran. Exit 0
// when written (the verdict is the merge's), so a scheduler's "after the shards succeeded" holds.
int finish_shard(const Scenario& base, const std::vector<std::string>& arguments,
                 const nlohmann::json& settings, const Shard& shard, const Explored& explored,
                 uint64_t first_seed, double elapsed, const std::string& out_dir) {
  if (!write_shard_file(out_dir, "explore", arguments, settings, shard,
                        shard_result_json(base, explored, first_seed))) {
    return bad_input("explore: cannot write to " + out_dir);
  }
  if (explored.seeds == 0) {
    std::printf("shard %s: no seed in its share (more shards than seeds); it merges as empty\n",
                shard_text(shard).c_str());
    return exit_ok;
  }
  std::printf(
      "shard %s: explored %llu seeds (%llu..%llu) in %.2f s: %.1f seeds/s; %zu violating "
      "seed(s); merge the shards with 'redlock-sim merge'\n",
      shard_text(shard).c_str(), static_cast<unsigned long long>(explored.seeds),
      static_cast<unsigned long long>(first_seed),
      static_cast<unsigned long long>(first_seed + explored.seeds - 1), elapsed,
      explored.seeds / std::max(elapsed, 1e-9), explored.violations.size());
  return exit_ok;
}

// One finding as the terminal shows it: its signature, how often it occurred, and when shrunk,
// the minimal run's shape and the line that replays it.
void print_finding(const FindingReport& report, const std::string& out_dir) {
  const Finding& f = report.finding;
  std::printf("\n[%zu] %s\n    %llu occurrence(s), first at seed %llu\n", report.number,
              f.signature.c_str(), static_cast<unsigned long long>(f.occurrences),
              static_cast<unsigned long long>(f.first_seed));
  if (!report.shrunk) return;
  const ShrunkFinding& s = *report.shrunk;
  const Scenario& scenario = s.shrunk.scenario;
  std::printf("    shrunk in %u runs: %zu -> %zu fault(s), %zu client(s), %zu node(s)%s\n",
              s.shrunk.runs, s.faults_before, scenario.faults.size(), scenario.clients.size(),
              scenario.nodes.size(), s.shrunk.minimal ? "" : " (run budget spent)");
  // (Both sides count the base scenario's own faults too.)
  if (report.minimal_classes != s.classes_before) {
    std::printf("    the minimal run needs only: %s\n", report.minimal_classes_text.empty()
                                                            ? "no faults"
                                                            : report.minimal_classes_text.c_str());
  }
  if (report.same_as) {
    std::printf("    (shrinks to the same checker and classes as [%zu])\n", *report.same_as);
  }
  if (out_dir.empty()) return;
  std::printf("    reproduce: %s\n",
              reproduce_command(program_name(), out_dir, report.stem).c_str());
}

// What explore tells once its seeds ran (or its shards merged): attribution runs and limit hits,
// then each finding, shrunk and written when --out is given, and findings.json.
struct ExploreRun {
  const Scenario& base;
  const ExploreConfig& config;
  ExploreSettings settings;
  uint32_t shrink_max = 8;
  uint32_t shrink_runs = 2000;
  unsigned jobs = 1;
  std::string out_dir;
};

int report_exploration(const ExploreRun& run, const Explored& explored,
                       const std::vector<Finding>& findings) {
  if (explored.attribution_runs > 0) {
    std::printf(
        "(and %llu runs that dropped fault classes to see which ones each violation "
        "needs)\n",
        static_cast<unsigned long long>(explored.attribution_runs));
  }
  if (explored.limit_hits > 0) {
    std::printf(
        "%llu seed(s) stopped at a run limit (the scenario's limits: events_max, "
        "messages_in_flight_max); their verdicts cover the run up to there\n",
        static_cast<unsigned long long>(explored.limit_hits));
  }
  if (findings.empty()) {
    std::printf("no violation found\n");
    const nlohmann::json summary =
        findings_summary(run.base, run.config, run.settings, explored, {}, !run.out_dir.empty());
    if (!run.out_dir.empty() && !write_findings_summary(run.out_dir, summary)) {
      return bad_input("explore: cannot write to " + run.out_dir);
    }
    return exit_ok;
  }
  std::printf("%zu distinct violation(s):\n", findings.size());
  // Up to --shrink-max findings shrunk, distinct ones first, on the pool; reported in finding
  // order.
  const LockFactory factory = registry_lock_factory();
  std::vector<FindingReport> reports =
      report_findings(run.base, run.config, findings, run.shrink_max, run.shrink_runs, factory,
                      worker_pool(), run.jobs);
  const nlohmann::json summary =
      findings_summary(run.base, run.config, run.settings, explored, reports, !run.out_dir.empty());
  if (!run.out_dir.empty() &&
      !write_finding_counterexamples(reports, run.out_dir, factory, program_name())) {
    std::fprintf(stderr, "redlock-sim: cannot write to %s\n", run.out_dir.c_str());
    return exit_bad_input;
  }
  for (const FindingReport& report : reports)
    print_finding(report, run.out_dir);
  if (!run.out_dir.empty() && !write_findings_summary(run.out_dir, summary)) {
    return bad_input("explore: cannot write to " + run.out_dir);
  }
  return exit_failed;
}

// The whole command; `merge` (not null) when finishing a sharded run from its shards instead of
// running seeds.
int explore_main(const std::vector<std::string>& arguments, const MergeRequest* merge) {
  po::options_description options("redlock-sim explore BASE.json [options]");
  std::string faults_flag;
  std::string checkers_flag = "mx,rs,lv";
  uint64_t seeds = 0;
  uint64_t seed_start = 1;
  double time_limit = 0;
  unsigned jobs = 1;
  std::string out_dir;
  uint32_t shrink_max = 8;
  uint32_t shrink_runs = 2000;
  std::string group_by = "involved";
  std::string shard_flag;
  ExploreConfig config;
  options.add_options()("help,h", "show this help")(
      "faults", po::value<std::string>(&faults_flag),
      "comma-separated fault classes to draw from (default: all; 'redlock-sim list' names them)")(
      "checkers", po::value<std::string>(&checkers_flag)->default_value("mx,rs,lv"),
      "which checkers count: mx, rs, lv")("seeds", po::value<uint64_t>(&seeds),
                                          "number of seeds to run")(
      "seed-start", po::value<uint64_t>(&seed_start)->default_value(1), "first seed")(
      "time-limit", po::value<double>(&time_limit), "stop after this many seconds")(
      "jobs,j", po::value<unsigned>(&jobs)->default_value(1), "parallel workers (over seeds)")(
      "out", po::value<std::string>(&out_dir), "write each shrunk counterexample to DIR")(
      "shrink-max", po::value<uint32_t>(&shrink_max)->default_value(8),
      "shrink at most this many distinct findings")(
      "shrink-runs", po::value<uint32_t>(&shrink_runs)->default_value(2000),
      "run budget per shrink")(
      "group-by", po::value<std::string>(&group_by)->default_value("involved"),
      "involved: file each violation under the fault classes it needs (drops classes and "
      "re-runs); on: under every class the seed turned on (no extra runs)")(
      "quiet,q", "no progress line (for CI)")(
      "shard", po::value<std::string>(&shard_flag),
      "run only shard K of N (0-based) of the seeds and write the partial result to --out; "
      "'redlock-sim merge' combines the shards (docs/scale-out.md)");
  // The swarm's bounds: the ones matrix shares, and the swarm's own two.
  ExploreBounds& bounds = config.bounds;
  std::string class_on = "1/2";
  po::options_description bound_options = bound_flags(bounds);
  bound_options.add_options()("faults-per-class",
                              po::value<uint32_t>(&bounds.faults_per_class_max)->default_value(2),
                              "at most this many faults of a class that is on (1 to 16)")(
      "class-on", po::value<std::string>(&class_on)->default_value("1/2"),
      "probability N/D that a class is on in a seed");
  options.add(bound_options);
  po::variables_map values;
  if (auto done = parse_with_file(
          arguments, options, "explore",
          "Searches fault plans by itself: each seed turns a random subset of the fault\n"
          "classes on (swarm testing), runs the base scenario under them, and checks it.\n"
          "Violations are grouped by checker and the fault classes each one needs; each\n"
          "group is shrunk to a minimal scenario file. --out DIR gets, per finding, the\n"
          "scenario, its JSON result, its story and an HTML report, and findings.json.\n"
          "Exit 0: no violation found; 1: violations found; 2: bad input.",
          values)) {
    return *done;
  }
  if (values.count("time-limit") && !(time_limit > 0 && time_limit < 1e9)) {
    return bad_input("explore: --time-limit must be a number of seconds above 0");
  }
  if (seeds == 0 && time_limit <= 0) return bad_input("explore: give --seeds N or --time-limit S");
  // Seeds are 64-bit: the last one must not wrap around.
  const uint64_t seeds_left = std::numeric_limits<uint64_t>::max() - seed_start + 1;
  if (seed_start > 0 && seeds > seeds_left) {
    return bad_input("explore: --seed-start + --seeds goes past the last seed, 2^64 - 1");
  }
  if (jobs == 0 || jobs > 256) return bad_input("explore: --jobs must be in [1, 256]");
  if (shrink_runs < 2) return bad_input("explore: --shrink-runs must be at least 2");
  if (group_by != "involved" && group_by != "on") {
    return bad_input("explore: --group-by must be 'involved' or 'on'");
  }
  if (auto failed = check_bounds(bounds, class_on)) return *failed;
  std::optional<Shard> shard;
  if (merge == nullptr && values.count("shard")) {
    shard = parse_shard(shard_flag);
    if (!shard) {
      return bad_input("explore: --shard must be K/N with 0 <= K < N <= 1000000, e.g. 0/4");
    }
    if (seeds == 0 || values.count("time-limit")) {
      return bad_input(
          "explore: --shard needs --seeds N and no --time-limit (shards must run "
          "whole blocks of seeds to merge)");
    }
    if (out_dir.empty())
      return bad_input("explore: --shard needs --out DIR for its partial result");
  }
  if (values.count("faults")) {
    config.classes.clear();
    for (const std::string& name : unique_names(faults_flag)) {
      const auto fault_class = parse_fault_class(name);
      if (!fault_class) {
        std::vector<std::string> known;
        for (FaultClass c : all_fault_classes())
          known.push_back(fault_class_name(c));
        return bad_input("explore: unknown fault class '" + name + "'" +
                         name_hint(name, known, "'redlock-sim list'"));
      }
      config.classes.push_back(*fault_class);
    }
    if (config.classes.empty()) return bad_input("explore: --faults names no fault class");
  }
  config.checkers.clear();
  for (const std::string& name : unique_names(checkers_flag)) {
    if (checker_name(name).empty()) return bad_input("explore: unknown checker '" + name + "'");
    const std::string checker = checker_name(name);
    if (std::find(config.checkers.begin(), config.checkers.end(), checker) ==
        config.checkers.end()) {
      config.checkers.push_back(checker);
    }
  }
  if (config.checkers.empty()) return bad_input("explore: --checkers names no checker");
  const std::string file = values["file"].as<std::string>();
  const std::optional<Scenario> loaded = load_scenario(file, registry_profile_check());
  if (!loaded) return exit_bad_input;
  const Scenario& base = *loaded;
  nlohmann::json settings = shard_settings(values, {"shard", "out", "jobs", "quiet", "help"});
  settings["file_digest"] = file_digest(file).value_or("");
  if (merge != nullptr) {
    std::string now, then;
    const std::string key = first_difference(settings, merge->settings, now, then);
    if (!key.empty()) {
      return bad_input("merge: the shards ran with " + key + " '" + then + "', which is now '" +
                       now + "' (was " + file + " changed?)");
    }
    out_dir = merge->out_dir;
    jobs = merge->jobs;
  }
  // Created last, once everything else is known to be right.
  if (!out_dir.empty()) {
    if (auto failed = prepare_out_dir("explore", out_dir)) return *failed;
  }
  const bool quiet = merge != nullptr ? merge->quiet : values.count("quiet") != 0;
  const bool show_progress = !quiet && isatty(STDERR_FILENO) != 0;
  const uint64_t count = seeds > 0 ? seeds : (seed_start == 0 ? seeds_left - 1 : seeds_left);
  const auto began = Clock::now();
  Explored explored;
  std::vector<Finding> findings;
  if (merge != nullptr) {
    std::string error;
    std::optional<MergedExploration> merged =
        merge_shard_results(base, merge->results, merge->sources, seed_start, count, error);
    if (!merged) return bad_input("merge: " + error);
    explored = std::move(merged->explored);
    findings = std::move(merged->findings);
    std::printf("merged %zu shard(s): explored %llu seeds (%llu..%llu)\n", merge->results.size(),
                static_cast<unsigned long long>(explored.seeds),
                static_cast<unsigned long long>(seed_start),
                static_cast<unsigned long long>(seed_start + explored.seeds - 1));
  } else {
    const ItemRange block = shard ? shard_block(count, *shard) : ItemRange{.end = count};
    explored = run_seeds(base, config, seed_start + block.begin, block.size(), time_limit, jobs,
                         show_progress, group_by == "involved");
    if (shard) {
      const double elapsed = std::chrono::duration<double>(Clock::now() - began).count();
      return finish_shard(base, arguments, settings, *shard, explored, seed_start + block.begin,
                          elapsed, out_dir);
    }
    findings = collect_findings(base, explored.violations);
  }
  const double elapsed = std::chrono::duration<double>(Clock::now() - began).count();
  if (merge == nullptr) {
    std::printf("explored %llu seeds (%llu..%llu) in %.2f s: %.1f seeds/s, %.2f M events/s\n",
                static_cast<unsigned long long>(explored.seeds),
                static_cast<unsigned long long>(seed_start),
                static_cast<unsigned long long>(seed_start + explored.seeds - 1), elapsed,
                explored.seeds / std::max(elapsed, 1e-9),
                explored.events / std::max(elapsed, 1e-9) / 1e6);
  }
  return report_exploration(ExploreRun{.base = base,
                                       .config = config,
                                       .settings = {.base_file = file,
                                                    .seed_start = seed_start,
                                                    .group_by = group_by,
                                                    .class_on = class_on},
                                       .shrink_max = shrink_max,
                                       .shrink_runs = shrink_runs,
                                       .jobs = jobs,
                                       .out_dir = out_dir},
                            explored, findings);
}

int run_explore(const std::vector<std::string>& arguments) {
  return explore_main(arguments, nullptr);
}

int merge_explore(const MergeRequest& request) {
  return explore_main(request.arguments, &request);
}

const Registrar registrar({"explore",
                           "search fault plans over many seeds; shrink each violation found",
                           &run_explore});
const MergeRegistrar merge_registrar("explore", &merge_explore);

}  // namespace
}  // namespace redlock_sim::cli
