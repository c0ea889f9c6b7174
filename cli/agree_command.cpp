// `redlock-sim agree [FILES...]`: runs each scenario in simulation and for real, and prints a
// table of where they agree: the three verdicts, the first overlap of each side, and the wall
// time of each. Agreement means equal verdicts and, when both sides overlap, first overlaps whose
// starts and ends are within max(25 ms, 2 % of the simulated overlap's length). A file that
// disagrees is staged once more before it is called a disagreement (real runs are not
// deterministic). Files that cannot be staged are listed with the reason. Exit 0 when every
// stageable file agrees, 1 otherwise, 2 on bad input.
#include <boost/program_options.hpp>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <sstream>

#include "cli/command.hpp"
#include "cli/lock_wiring.hpp"
#include "cli/options.hpp"
#include "cli/real_wiring.hpp"
#include "reports/result_json.hpp"

namespace redlock_sim::cli {
namespace {

namespace po = boost::program_options;

const Violation* first_overlap(const ScenarioResult& result) {
  for (const Violation& v : result.violations)
    if (v.kind == "overlap") return &v;
  return nullptr;
}

std::string verdicts_text(const ScenarioResult& r) {
  const auto letter = [](Verdict v) {
    return v == Verdict::holds ? "holds" : v == Verdict::violated ? "VIOLATED" : "-";
  };
  return std::string("MX ") + letter(r.mutual_exclusion) + ", RS " + letter(r.resource_safety) +
         ", LV " + letter(r.liveness);
}

std::string overlap_text(const Violation* v) {
  if (v == nullptr) return "none";
  return "[" + std::to_string(v->start.ms_floor()) + ", " + std::to_string(v->end.ms_floor()) + ")";
}

struct Row {
  std::string file;
  std::string name;
  std::optional<std::string> unstageable;
  ScenarioResult sim;
  ScenarioResult real;
  int64_t sim_ms = 0;
  int64_t real_ms = 0;
  bool agree = false;
  bool retried = false;
  std::string why;
};

// Equal verdicts, and overlaps that agree within the tolerance; `why` says what differs.
bool compare(const ScenarioResult& sim, const ScenarioResult& real, std::string& why) {
  why.clear();
  const std::pair<const char*, std::pair<Verdict, Verdict>> checks[] = {
      {"mutual exclusion", {sim.mutual_exclusion, real.mutual_exclusion}},
      {"resource safety", {sim.resource_safety, real.resource_safety}},
      {"liveness", {sim.liveness, real.liveness}}};
  for (const auto& [name, pair] : checks) {
    if (pair.first != pair.second) {
      why += std::string(why.empty() ? "" : "; ") + name + ": sim " + verdict_name(pair.first) +
             ", real " + verdict_name(pair.second);
    }
  }
  const Violation* a = first_overlap(sim);
  const Violation* b = first_overlap(real);
  if (a != nullptr && b != nullptr) {
    const int64_t tolerance_ms = std::max<int64_t>(25, (a->end - a->start).ms_floor() / 50);
    const int64_t start_gap = std::abs(a->start.ms_floor() - b->start.ms_floor());
    const int64_t end_gap = std::abs(a->end.ms_floor() - b->end.ms_floor());
    if (start_gap > tolerance_ms || end_gap > tolerance_ms) {
      why += std::string(why.empty() ? "" : "; ") + "first overlap " + overlap_text(a) +
             " vs " + overlap_text(b) + " (tolerance " + std::to_string(tolerance_ms) + " ms)";
    }
  }
  return why.empty();
}

int64_t elapsed_ms(std::chrono::steady_clock::time_point since) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() -
                                                               since)
      .count();
}

std::string markdown_table(const std::vector<Row>& rows) {
  std::ostringstream out;
  std::size_t staged = 0, agreeing = 0;
  for (const Row& r : rows) {
    if (r.unstageable) continue;
    ++staged;
    agreeing += r.agree ? 1 : 0;
  }
  out << "Agreement: " << agreeing << " of " << staged << " stageable files";
  if (staged > 0) out << " (" << (agreeing * 100 / staged) << " %)";
  out << "; " << rows.size() - staged << " cannot be staged yet.\n\n";
  out << "| scenario | sim verdicts | real verdicts | sim first overlap | real first overlap | "
         "agree | sim ms | real ms |\n|---|---|---|---|---|---|---|---|\n";
  for (const Row& r : rows) {
    if (r.unstageable) continue;
    out << "| " << r.name << " | " << verdicts_text(r.sim) << " | " << verdicts_text(r.real)
        << " | " << overlap_text(first_overlap(r.sim)) << " | "
        << overlap_text(first_overlap(r.real)) << " | "
        << (r.agree ? (r.retried ? "yes (on the retry)" : "yes") : "**no**: " + r.why) << " | "
        << r.sim_ms << " | " << r.real_ms << " |\n";
  }
  out << "\nNot stageable yet:\n\n| scenario | why |\n|---|---|\n";
  for (const Row& r : rows)
    if (r.unstageable) out << "| " << r.name << " | " << *r.unstageable << " |\n";
  return out.str();
}

int run_agree(const std::vector<std::string>& arguments) {
  po::options_description options("redlock-sim agree [FILES...] [options]");
  options.add_options()("help,h", "show this help")(
      "markdown", po::value<std::string>(), "also write the table as Markdown to PATH")(
      "redis-server", po::value<std::string>()->default_value("redis-server"),
      "the redis-server binary (a path, or a name on PATH)")(
      "files", po::value<std::vector<std::string>>(), "scenario files (default: scenarios/*.json)");
  po::positional_options_description positional;
  positional.add("files", -1);
  po::variables_map values;
  try {
    store_checked(po::command_line_parser(arguments)
                      .options(options)
                      .positional(positional)
                      .style(command_line_style())
                      .run(),
                  values);
    po::notify(values);
  } catch (const po::error& error) {
    return bad_input(std::string("agree: ") + error.what());
  }
  if (values.count("help")) {
    std::cout << "Runs each scenario in simulation and staged for real, and prints where they\n"
                 "agree. Exit 0: every stageable file agrees; 1: some disagree; 2: bad input.\n\n"
              << options;
    return exit_ok;
  }
  if (values.count("markdown")) {
    if (auto failed = check_output_file("agree", "--markdown", values["markdown"].as<std::string>()))
      return *failed;
  }
  std::vector<std::string> files;
  if (values.count("files")) {
    files = values["files"].as<std::vector<std::string>>();
  } else {
    for (const auto& entry : std::filesystem::directory_iterator(REDLOCK_SOURCE_DIR "/scenarios"))
      if (entry.path().extension() == ".json") files.push_back(entry.path().string());
    std::sort(files.begin(), files.end());
  }
  std::vector<std::pair<std::string, Scenario>> scenarios;
  for (const std::string& file : files) {
    std::optional<Scenario> loaded = load_scenario(file, registry_profile_check());
    if (!loaded) return exit_bad_input;
    scenarios.emplace_back(file, std::move(*loaded));
  }
  real::RealOptions real_options_value;
  if (auto error = real_options(values["redis-server"].as<std::string>(), real_options_value)) {
    return bad_input("agree: " + *error);
  }
  install_real_interrupt_handlers();
  std::vector<Row> rows;
  for (const auto& [file, scenario] : scenarios) {
    Row row{.file = file, .name = scenario.name};
    row.unstageable = real::unstageable_reason(scenario);
    if (!row.unstageable) {
      const auto sim_start = std::chrono::steady_clock::now();
      row.sim = run_scenario(scenario, registry_lock_factory());
      row.sim_ms = elapsed_ms(sim_start);
      for (int attempt = 0; attempt < 2; ++attempt) {
        std::string error;
        const std::optional<real::RealRun> run = real::run_real(scenario, real_options_value, error);
        if (real_interrupted) return exit_failed;
        if (!run) return bad_input("agree: " + file + ": " + error);
        row.real = run->result;
        row.real_ms = run->report.wall_ms;
        row.agree = compare(row.sim, row.real, row.why);
        if (row.agree) break;
        row.retried = true;
      }
      std::printf("%-58s %s\n", scenario.name.c_str(),
                  row.agree ? (row.retried ? "agrees (on the retry)" : "agrees")
                            : ("DISAGREES: " + row.why).c_str());
    } else {
      std::printf("%-58s not stageable: %s\n", scenario.name.c_str(), row.unstageable->c_str());
    }
    std::fflush(stdout);
    rows.push_back(std::move(row));
  }
  const std::string table = markdown_table(rows);
  std::printf("\n%s", table.c_str());
  if (values.count("markdown") && !write_file(values["markdown"].as<std::string>(), table)) {
    std::fprintf(stderr, "redlock-sim: cannot write %s\n", values["markdown"].as<std::string>().c_str());
    return exit_bad_input;
  }
  const bool all = std::all_of(rows.begin(), rows.end(),
                               [](const Row& r) { return r.unstageable || r.agree; });
  return all ? exit_ok : exit_failed;
}

const Registrar registrar({"agree", "run scenarios in simulation and for real, and compare",
                           &run_agree});

}  // namespace
}  // namespace redlock_sim::cli
