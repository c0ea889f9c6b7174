// my-lock-check: explores my-redlock under client pauses, shrinks what it finds, writes the
// counterexample and prints the line that reproduces it; then my-redlock's row of the safety
// matrix. `my-lock-check run FILE` replays a counterexample (exit 0: its expectations are met).
#include <cstdio>
#include <filesystem>
#include <string>

#include "api/embed.hpp"
#include "my_lock.hpp"

using namespace redlock_sim;

namespace {

int replay(const std::string& file) {
  const Scenario scenario = load_scenario_file(file);
  const ScenarioResult result = run(scenario);
  std::printf("%s", summary_text(result, scenario.description, "").c_str());
  return result.expectations_met ? 0 : 1;
}

int check(const std::string& program, const std::string& out_dir) {
  const Scenario base = load_scenario_file(std::string(MY_LOCK_DIR) + "/my-lock.json");
  ExploreOptions options{
      .seeds = {.start = 1, .count = 40}, .shrink_max = 1, .shrink_runs_max = 600};
  options.config.classes = {FaultClass::client_pause};
  options.config.checkers = {"mutual_exclusion"};
  options.config.bounds.on_numerator = 1;  // pauses in every seed
  options.config.bounds.on_denominator = 1;
  ExploreReport report = explore(base, options);
  std::printf("explored %llu seeds: %zu finding(s)\n",
              static_cast<unsigned long long>(report.explored.seeds), report.findings.size());
  if (report.shrunk.empty()) return 1;
  ShrunkFinding& found = report.shrunk.front();
  std::printf("%s\n  first at seed %llu, shrunk in %u runs to %zu fault(s), %zu client(s)\n",
              found.finding.signature.c_str(),
              static_cast<unsigned long long>(found.finding.first_seed), found.shrunk.runs,
              found.shrunk.scenario.faults.size(), found.shrunk.scenario.clients.size());
  std::filesystem::create_directories(out_dir);
  const std::string stem = "finding-1-mutual_exclusion";
  if (!write_counterexample(found.shrunk.scenario, out_dir, stem, registry_lock_factory(),
                            program)) {
    return 2;
  }
  std::printf("reproduce: %s\n", reproduce_command(program, out_dir, stem).c_str());

  // my-redlock's row of the safety matrix: the standard workload under every fault column.
  const Scenario row_base = matrix_row_base(*find_lock_entry("my-redlock"));
  const std::vector<MatrixCell> row =
      matrix_row(row_base, "my-redlock", matrix_columns(), 10, registry_lock_factory());
  std::printf("\nmatrix row (10 seeds a cell; MX/RS: seeds that violated):\n");
  for (const MatrixCell& cell : row) {
    std::printf("  %-28s MX %u  RS %u  LV %u\n", cell.column.c_str(), cell.mx_violations,
                cell.rs_violations, cell.lv_violations);
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  my_lock::register_my_redlock();
  try {
    if (argc == 3 && std::string(argv[1]) == "run") return replay(argv[2]);
    return check(argv[0], argc > 1 ? argv[1] : "my-lock-findings");
  } catch (const ScenarioError& error) {
    std::fprintf(stderr, "%s\n", error.what());
    return 2;
  }
}
