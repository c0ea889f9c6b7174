#include "api/explore_report.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <stdexcept>

#include "reports/tool_version.hpp"
#include "sim/explore/shard.hpp"

namespace redlock_sim {

namespace {

// One shard's findings added to the merged ones. Shards come in seed order, so a finding new to
// the merge first appeared after every finding already there, and the order stays that of first
// appearance, as collect_findings gives on one machine.
void add_shard_findings(const Scenario& base, const nlohmann::json& part,
                        std::vector<Finding>& findings) {
  for (const nlohmann::json& entry : part.at("findings")) {
    AttributedViolation violation{.checker = entry.at("checker").get<std::string>()};
    for (const nlohmann::json& name : entry.at("fault_classes")) {
      const auto fault_class = parse_fault_class(name.get<std::string>());
      if (!fault_class) throw std::runtime_error("unknown fault class " + name.dump());
      violation.involved.push_back(*fault_class);
    }
    const std::string signature = violation_signature(base, violation);
    const uint64_t occurrences = entry.at("occurrences").get<uint64_t>();
    auto found = std::find_if(findings.begin(), findings.end(),
                              [&](const Finding& f) { return f.signature == signature; });
    if (found != findings.end()) {
      found->occurrences += occurrences;
      continue;
    }
    findings.push_back(Finding{.signature = signature,
                               .checker = violation.checker,
                               .involved = violation.involved,
                               .first_seed = entry.at("first_seed").get<uint64_t>(),
                               .occurrences = occurrences});
  }
}

nlohmann::json finding_json(const FindingReport& report, bool with_file) {
  const Finding& f = report.finding;
  nlohmann::json entry{{"index", report.number},
                       {"signature", f.signature},
                       {"checker", f.checker},
                       {"fault_classes", fault_class_names(f.involved)},
                       {"occurrences", f.occurrences},
                       {"first_seed", f.first_seed},
                       {"shrunk", nullptr}};
  if (!report.shrunk) return entry;
  const ShrinkResult& shrunk = report.shrunk->shrunk;
  entry["shrunk"] = {
      {"runs", shrunk.runs},
      {"minimal", shrunk.minimal},
      {"faults", shrunk.scenario.faults.size()},
      {"clients", shrunk.scenario.clients.size()},
      {"nodes", shrunk.scenario.nodes.size()},
      {"fault_classes", fault_class_names(report.minimal_classes)},
      {"same_as", report.same_as ? nlohmann::json(*report.same_as) : nlohmann::json(nullptr)},
      {"file", with_file ? nlohmann::json(report.stem + ".json") : nlohmann::json(nullptr)}};
  return entry;
}

}  // namespace

nlohmann::json fault_class_names(const std::vector<FaultClass>& classes) {
  nlohmann::json names = nlohmann::json::array();
  for (FaultClass c : classes)
    names.push_back(fault_class_name(c));
  return names;
}

nlohmann::json shard_result_json(const Scenario& base, const Explored& explored,
                                 uint64_t first_seed) {
  nlohmann::json findings = nlohmann::json::array();
  for (const Finding& f : collect_findings(base, explored.violations)) {
    findings.push_back({{"checker", f.checker},
                        {"fault_classes", fault_class_names(f.involved)},
                        {"first_seed", f.first_seed},
                        {"occurrences", f.occurrences}});
  }
  return {{"first_seed", first_seed},
          {"seeds", explored.seeds},
          {"events", explored.events},
          {"attribution_runs", explored.attribution_runs},
          {"seeds_stopped_at_a_limit", explored.limit_hits},
          {"violating_seeds", explored.violating},
          {"findings", findings}};
}

std::optional<MergedExploration> merge_shard_results(const Scenario& base,
                                                     const std::vector<nlohmann::json>& results,
                                                     const std::vector<std::string>& sources,
                                                     uint64_t seed_start, uint64_t count,
                                                     std::string& error) {
  MergedExploration merged;
  Explored& total = merged.explored;
  const uint64_t shard_count = results.size();
  for (uint64_t k = 0; k < shard_count; ++k) {
    const nlohmann::json& part = results[k];
    const ItemRange block = shard_block(count, Shard{.index = k, .count = shard_count});
    try {
      if (part.at("first_seed").get<uint64_t>() != seed_start + block.begin ||
          part.at("seeds").get<uint64_t>() != block.size()) {
        error = sources[k] + " ran other seeds than shard " + std::to_string(k) + "/" +
                std::to_string(shard_count) + " of --seeds " + std::to_string(count);
        return std::nullopt;
      }
      total.seeds += block.size();
      total.events += part.at("events").get<uint64_t>();
      total.attribution_runs += part.at("attribution_runs").get<uint64_t>();
      total.limit_hits += part.at("seeds_stopped_at_a_limit").get<uint64_t>();
      for (const auto& [checker, seeds] : part.at("violating_seeds").items())
        total.violating[checker] += seeds.get<uint64_t>();
      add_shard_findings(base, part, merged.findings);
    } catch (const std::exception& e) {
      error = sources[k] + ": not an explore shard's result: " + e.what();
      return std::nullopt;
    }
  }
  return merged;
}

std::vector<FindingReport> report_findings(const Scenario& base, const ExploreConfig& config,
                                           const std::vector<Finding>& findings,
                                           std::size_t shrink_max, uint32_t runs_max,
                                           const LockFactory& factory, const RunWorkers& workers,
                                           unsigned jobs) {
  std::vector<FindingReport> reports(findings.size());
  for (std::size_t i = 0; i < findings.size(); ++i) {
    reports[i].number = i + 1;
    reports[i].finding = findings[i];
    reports[i].stem = "finding-" + std::to_string(i + 1) + "-" + findings[i].checker;
  }
  for (ShrunkFinding& s :
       shrink_findings(base, config, findings, shrink_max, runs_max, factory, workers, jobs)) {
    reports[s.index].shrunk = std::move(s);
  }
  std::map<std::string, std::size_t> minimal_shapes;  // checker|classes -> first finding (1-based)
  for (FindingReport& report : reports) {
    if (!report.shrunk) continue;
    report.minimal_classes = fault_classes_of(report.shrunk->shrunk.scenario);
    for (FaultClass c : report.minimal_classes) {
      report.minimal_classes_text +=
          std::string(report.minimal_classes_text.empty() ? "" : " ") + fault_class_name(c);
    }
    const std::string shape = report.finding.checker + "|" + report.minimal_classes_text;
    const auto [earlier, first_of_shape] = minimal_shapes.emplace(shape, report.number);
    if (!first_of_shape) report.same_as = earlier->second;
  }
  return reports;
}

nlohmann::json findings_summary(const Scenario& base, const ExploreConfig& config,
                                const ExploreSettings& settings, const Explored& explored,
                                const std::vector<FindingReport>& reports, bool with_files) {
  const ExploreBounds& bounds = config.bounds;
  nlohmann::json summary = {{"base", base.name},
                            {"base_file", settings.base_file},
                            {"seeds",
                             {{"first", settings.seed_start},
                              {"last", settings.seed_start + explored.seeds - 1},
                              {"count", explored.seeds}}},
                            {"fault_classes", fault_class_names(config.classes)},
                            {"checkers", config.checkers},
                            {"group_by", settings.group_by},
                            {"tool", tool_json()},
                            {"bounds",
                             {{"window_ms", bounds.window_ms},
                              {"faults_per_class", bounds.faults_per_class_max},
                              {"class_on", settings.class_on},
                              {"clock_step_max_ms", bounds.clock_step_ms_max},
                              {"clock_rate_max_ppm", bounds.clock_rate_ppm_max},
                              {"pause_max_ms", bounds.pause_ms_max},
                              {"down_max_ms", bounds.down_ms_max},
                              {"partition_max_ms", bounds.partition_ms_max},
                              {"message_delay_max_ms", bounds.message_delay_ms_max}}},
                            {"findings", nlohmann::json::array()}};
  nlohmann::json violating = nlohmann::json::object();
  for (const std::string& checker : config.checkers) {
    const auto found = explored.violating.find(checker);
    violating[checker] = found == explored.violating.end() ? 0 : found->second;
  }
  summary["violating_seeds"] = violating;
  summary["seeds_stopped_at_a_limit"] = explored.limit_hits;
  for (const FindingReport& report : reports)
    summary["findings"].push_back(finding_json(report, with_files));
  return summary;
}

bool write_finding_counterexamples(std::vector<FindingReport>& reports, const std::string& dir,
                                   const LockFactory& factory, const std::string& program) {
  std::filesystem::create_directories(dir);
  for (FindingReport& report : reports) {
    if (!report.shrunk) continue;
    if (!write_counterexample(report.shrunk->shrunk.scenario, dir, report.stem, factory, program))
      return false;
  }
  return true;
}

bool write_findings_summary(const std::string& dir, const nlohmann::json& summary) {
  std::ofstream out(std::filesystem::path(dir) / "findings.json", std::ios::binary);
  out << summary.dump(2) << "\n";
  return static_cast<bool>(out);
}

}  // namespace redlock_sim
