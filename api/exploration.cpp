#include "api/exploration.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <mutex>

#include <nlohmann/json.hpp>

#include "reports/html_report.hpp"
#include "reports/result_json.hpp"
#include "reports/text_report.hpp"
#include "scenarios/writer.hpp"

namespace redlock_sim {

namespace {

using Clock = std::chrono::steady_clock;

bool write_text(const std::filesystem::path& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
  return static_cast<bool>(out);
}

}  // namespace

Explored explore_seeds(const Scenario& base, const ExploreConfig& config, const SeedRange& range,
                       const LockFactory& factory, const RunWorkers& workers,
                       ExploreProgress* progress_out) {
  Explored explored;
  std::mutex mutex;
  std::map<uint64_t, SeedOutcome> pending;  // finished out of order, past the prefix
  std::atomic<uint64_t> next{0};
  std::atomic<bool> stop{false};
  ExploreProgress own_progress;
  ExploreProgress& progress = progress_out != nullptr ? *progress_out : own_progress;
  const auto began = Clock::now();
  const auto absorb = [&](SeedOutcome& outcome) {
    ++explored.seeds;
    explored.events += outcome.events + outcome.attribution_events;
    explored.attribution_runs += outcome.attribution_runs;
    explored.limit_hits += outcome.limit_hit ? 1 : 0;
    for (const std::string& c : outcome.violated)
      ++explored.violating[c];
    if (outcome.violated.empty()) return;
    outcome.plan = FaultPlan{};
    explored.violations.push_back(std::move(outcome));
  };
  auto worker = [&] {
    while (!stop.load()) {
      if (range.time_limit_s > 0 &&
          std::chrono::duration<double>(Clock::now() - began).count() >= range.time_limit_s) {
        stop = true;
        break;
      }
      const uint64_t index = next.fetch_add(1);
      if (index >= range.count) break;
      SeedOutcome outcome =
          explore_seed(base, range.start + index, config, factory, range.attribute);
      for (const std::string& c : outcome.violated) {
        (c == "mutual_exclusion"  ? progress.mx
         : c == "resource_safety" ? progress.rs
                                  : progress.lv)++;
      }
      progress.events += outcome.events + outcome.attribution_events;
      progress.done++;
      const std::lock_guard<std::mutex> lock(mutex);
      if (index != explored.seeds) {
        pending.emplace(index, std::move(outcome));
        continue;
      }
      absorb(outcome);
      for (auto it = pending.find(explored.seeds); it != pending.end();
           it = pending.find(explored.seeds)) {
        absorb(it->second);
        pending.erase(it);
      }
    }
  };
  workers(range.jobs, worker);
  return explored;
}

std::vector<ShrunkFinding> shrink_findings(const Scenario& base, const ExploreConfig& config,
                                           const std::vector<Finding>& findings, std::size_t count,
                                           uint32_t runs_max, const LockFactory& factory,
                                           const RunWorkers& workers, unsigned jobs) {
  std::vector<std::size_t> order = shrink_order(findings, count);
  std::sort(order.begin(), order.end());  // the chosen ones, reported in finding order
  const std::size_t to_shrink = order.size();
  std::vector<ShrunkFinding> shrunk(to_shrink);
  std::atomic<std::size_t> next{0};
  auto worker = [&] {
    for (std::size_t i = next.fetch_add(1); i < to_shrink; i = next.fetch_add(1)) {
      const Finding& f = findings[order[i]];
      shrunk[i].index = order[i];
      // Shrinking starts from the seed's faults of the involved classes only.
      const Scenario failing = scenario_for_seed(base, f.first_seed, config, f.involved);
      shrunk[i].finding = f;
      shrunk[i].faults_before = scenario_for_seed(base, f.first_seed, config).faults.size();
      shrunk[i].classes_before = fault_classes_of(failing);
      shrunk[i].shrunk =
          shrink_scenario(failing, f.checker, factory, ShrinkOptions{.runs_max = runs_max});
      Scenario& scenario = shrunk[i].shrunk.scenario;
      scenario.name = base.name + "-" + f.checker + "-seed" + std::to_string(f.first_seed);
      scenario.description = "Shrunk by redlock-sim explore from seed " +
                             std::to_string(f.first_seed) + " of " + base.name + ": " + f.signature;
    }
  };
  workers(static_cast<unsigned>(std::min<std::size_t>(jobs, to_shrink)), worker);
  return shrunk;
}

ShrinkResult shrink_seed(const Scenario& base, uint64_t seed, const ExploreConfig& config,
                         const std::string& checker, uint32_t runs_max, const LockFactory& factory,
                         const std::string& finder) {
  ShrinkResult shrunk = shrink_scenario(scenario_for_seed(base, seed, config), checker, factory,
                                        ShrinkOptions{.runs_max = runs_max});
  shrunk.scenario.name = base.name + "-" + checker + "-seed" + std::to_string(seed);
  std::string classes;
  for (FaultClass c : config.classes)
    classes += std::string(classes.empty() ? "" : ", ") + fault_class_name(c);
  shrunk.scenario.description = "Shrunk by " + finder + " from seed " + std::to_string(seed) +
                                " of " + base.name + ": " + checker + " violated under " +
                                (classes.empty() ? "no fault class" : classes);
  return shrunk;
}

std::string faults_text(const Scenario& scenario) {
  const nlohmann::json written = nlohmann::json::parse(write_scenario(scenario));
  const auto faults = written.find("faults");
  if (faults == written.end() || faults->empty()) return "(no faults)\n";
  std::string text;
  for (const nlohmann::json& fault : *faults)
    text += fault.dump() + "\n";
  return text;
}

std::string reproduce_command(const std::string& program, const std::string& dir,
                              const std::string& stem) {
  return program + " run " + (std::filesystem::path(dir) / (stem + ".json")).string();
}

bool write_counterexample(Scenario& scenario, const std::string& dir, const std::string& stem,
                          const LockFactory& factory, const std::string& program) {
  const std::filesystem::path path = std::filesystem::path(dir) / (stem + ".json");
  // The files show what `redlock-sim run` on the written scenario shows (its name and path
  // included: the HTML's reproduce line names the written file, not the base).
  scenario.source = path.string();
  const ScenarioResult reproduced = run_scenario(scenario, factory);
  bool written = write_text(path, write_scenario(scenario));
  written = written && write_text(std::filesystem::path(dir) / (stem + ".result.json"),
                                  result_json_text(reproduced));
  written = written && write_text(std::filesystem::path(dir) / (stem + ".txt"),
                                  summary_text(reproduced, scenario.description,
                                               reproduce_command(program, dir, stem)));
  // The picture: the same run again with every message kept for the arrows.
  const ScenarioResult pictured =
      run_scenario(scenario, factory, RunOptions{.message_log_max = 200'000});
  written = written && write_text(std::filesystem::path(dir) / (stem + ".html"),
                                  html_report(pictured, {.program = program}));
  return written;
}

ExploreReport explore(const Scenario& base, const LockFactory& factory,
                      const ExploreOptions& options) {
  ExploreReport report;
  report.explored = explore_seeds(base, options.config, options.seeds, factory, options.workers);
  report.findings = collect_findings(base, report.explored.violations);
  report.shrunk =
      shrink_findings(base, options.config, report.findings, options.shrink_max,
                      options.shrink_runs_max, factory, options.workers, options.seeds.jobs);
  return report;
}

}  // namespace redlock_sim
