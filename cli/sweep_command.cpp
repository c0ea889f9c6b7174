// `redlock-sim sweep FILE --vary PATH=FROM..TO[:STEP]`: where is the edge of safety? Runs a grid
// over one or two integer fields of a scenario, bisects every verdict change to the exact
// integer, and prints the thresholds; JSON and an HTML plot on request (docs/sweep.md).
#include <atomic>
#include <boost/program_options.hpp>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <map>
#include <set>
#include <sstream>
#include <thread>

#include "api/lock_wiring.hpp"
#include "cli/command.hpp"
#include "cli/options.hpp"
#include "cli/sweep.hpp"
#include "cli/worker_pool.hpp"
#include "reports/html_report.hpp"
#include "reports/sweep_report.hpp"

namespace redlock_sim::cli {
namespace {

namespace po = boost::program_options;
using nlohmann::json;

// Run reports are written for the grid's points when there are at most this many, and for the
// two runs either side of each verdict change up to the second bound: a page per point of a
// large map would be gigabytes nobody opens.
constexpr std::size_t grid_reports_max = 200;
constexpr std::size_t reports_max = 500;

// "run_154" or "run_154_9847": a point's file name (without extension).
std::string point_file_stem(const std::vector<int64_t>& values) {
  std::string out = "run";
  for (int64_t v : values)
    out += "_" + std::to_string(v);
  return out;
}

// The points that get a report: the grid when small, and both sides of every change.
std::set<std::vector<int64_t>> points_to_report(const SweepResult& result) {
  std::set<std::vector<int64_t>> out;
  std::size_t grid = 0;
  for (const SweepPoint& point : result.points)
    grid += point.on_grid ? 1 : 0;
  for (const SweepThreshold& t : result.thresholds) {
    for (int64_t v : {t.last, t.first}) {
      std::vector<int64_t> values = t.at;
      values[t.axis] = v;
      if (out.size() < reports_max) out.insert(values);
    }
  }
  if (grid <= grid_reports_max) {
    for (const SweepPoint& point : result.points)
      if (point.on_grid) out.insert(point.values);
  }
  return out;
}

// Writes each chosen point's HTML report and scenario file into `folder` (re-running it with the
// story on), and records the relative link in the point. Returns false when a file failed.
bool write_point_reports(const SweepSetup& setup, SweepResult& result,
                         const std::filesystem::path& folder, const std::string& link_prefix) {
  const std::set<std::vector<int64_t>> chosen = points_to_report(result);
  std::vector<SweepPoint*> points;
  for (SweepPoint& point : result.points)
    if (chosen.count(point.values)) points.push_back(&point);
  std::error_code error;
  std::filesystem::create_directories(folder, error);
  if (error) return false;
  std::atomic<std::size_t> next{0};
  std::atomic<bool> ok{true};
  const auto worker = [&] {
    for (std::size_t i = next++; i < points.size(); i = next++) {
      const PointScenario at = scenario_at(setup, points[i]->values);
      if (!at.scenario) continue;
      RunOptions options{.seed = setup.seed, .message_log_max = 200'000};
      const ScenarioResult run = run_scenario(*at.scenario, setup.factory, options);
      const std::string stem = point_file_stem(points[i]->values);
      if (!write_file(folder / (stem + ".html"), html_report(run, {.program = program_name()})) ||
          !write_file(folder / (stem + ".json"), at.text)) {
        ok = false;
      }
      points[i]->outcome.report = link_prefix + stem + ".html";
    }
  };
  run_workers(static_cast<unsigned>(std::min<std::size_t>(setup.jobs, points.size())), worker);
  return ok;
}

// Reads the file's JSON and configures the sweep; a bad PATH or range stops here with one
// message.
std::optional<int> prepare(const po::variables_map& values, SweepSetup& setup) {
  std::ifstream in(setup.file, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  setup.document = json::parse(text.str(), nullptr, false);
  if (setup.document.is_discarded()) return bad_input("sweep: cannot read " + setup.file);
  const auto list = [&](const char* flag) {
    return values.count(flag) ? values[flag].as<std::vector<std::string>>()
                              : std::vector<std::string>{};
  };
  if (auto failed = configure_sweep(setup, list("vary"), list("set"), list("unset")))
    return bad_input(*failed);
  return std::nullopt;
}

int run_sweep_command(const std::vector<std::string>& arguments) {
  po::options_description options(
      "redlock-sim sweep FILE --vary PATH=FROM..TO[:STEP] [--vary PATH2=...] [options]");
  unsigned jobs = 1;
  std::size_t runs_max = 10'000;
  options.add_options()("help,h", "show this help")(
      "vary", po::value<std::vector<std::string>>()->composing(),
      "an integer field to vary, as the parser's messages write it: "
      "'$.faults[2].delta_ms=0..400:20' (once or twice)")(
      "set", po::value<std::vector<std::string>>()->composing(),
      "PATH=VALUE: change a field of the file first (VALUE is JSON: 9847, \"text\")")(
      "unset", po::value<std::vector<std::string>>()->composing(),
      "PATH: remove a field of the file first")("seed", po::value<uint64_t>(),
                                                "root seed (default: the scenario's)")(
      "jobs,j", po::value<unsigned>(&jobs)->default_value(1), "parallel workers")(
      "runs-max", po::value<std::size_t>(&runs_max)->default_value(10'000),
      "the most runs, grid and bisection together")(
      "json", po::value<std::string>(), "write the sweep as JSON to PATH ('-': standard output)")(
      "html", po::value<std::string>(),
      "write the plot to PATH, and run reports into PATH's name + '-runs/'");
  po::variables_map values;
  if (auto done = parse_with_file(
          arguments, options, "sweep",
          "Varies one or two integer fields of a scenario over a grid, bisects every verdict\n"
          "change to the exact integer and prints where each checker's verdict changes.\n"
          "Exit 0: the sweep ran; 2: bad input.",
          values)) {
    return *done;
  }
  if (!values.count("vary")) return bad_input("sweep: give at least one --vary PATH=FROM..TO");
  if (jobs == 0 || jobs > 256) return bad_input("sweep: --jobs must be in [1, 256]");
  if (runs_max == 0 || runs_max > 1'000'000)
    return bad_input("sweep: --runs-max must be in [1, 1000000]");
  if (auto failed = check_output_flags("sweep", values, {"json", "html"})) return *failed;
  SweepSetup setup{.file = values["file"].as<std::string>(),
                   .check = registry_profile_check(),
                   .factory = registry_lock_factory(),
                   .jobs = jobs,
                   .runs_max = runs_max};
  if (values.count("seed")) setup.seed = values["seed"].as<uint64_t>();
  const std::optional<Scenario> loaded = load_scenario(setup.file, setup.check);
  if (!loaded) return exit_bad_input;
  if (auto failed = prepare(values, setup)) return *failed;

  SweepResult result = run_sweep(setup);
  result.scenario = loaded->name;
  result.seed = setup.seed.value_or(loaded->seed);
  if (values.count("html")) {
    const std::filesystem::path page = values["html"].as<std::string>();
    const std::string runs_name = page.stem().string() + "-runs";
    if (!write_point_reports(setup, result, page.parent_path() / runs_name, runs_name + "/") ||
        !write_file(page, sweep_html(result))) {
      std::fprintf(stderr, "redlock-sim: sweep: cannot write %s\n", page.string().c_str());
      return exit_bad_input;
    }
  }
  const bool json_to_stdout = values.count("json") && values["json"].as<std::string>() == "-";
  if (values.count("json")) {
    const std::string text = sweep_json_text(result);
    if (json_to_stdout) {
      std::fwrite(text.data(), 1, text.size(), stdout);
    } else if (!write_file(values["json"].as<std::string>(), text)) {
      std::fprintf(stderr, "redlock-sim: sweep: cannot write %s\n",
                   values["json"].as<std::string>().c_str());
      return exit_bad_input;
    }
  }
  const std::string summary = sweep_summary_text(result);
  std::fwrite(summary.data(), 1, summary.size(), json_to_stdout ? stderr : stdout);
  return exit_ok;
}

const Registrar registrar(
    {"sweep", "vary one or two numbers of a scenario: the exact threshold of each verdict",
     &run_sweep_command});

}  // namespace
}  // namespace redlock_sim::cli
