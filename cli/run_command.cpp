// `redlock-sim run FILE`: runs one scenario, prints the verdicts and the story of a violation.
// Exit 0 when every expectation in the file is met (or, with none, every checker holds), 1
// otherwise, 2 on bad input (nothing is run).
#include <boost/program_options.hpp>
#include <cstdio>
#include <fstream>
#include <functional>
#include <iostream>

#include "api/lock_wiring.hpp"
#include "cli/command.hpp"
#include "cli/options.hpp"
#include "reports/html_report.hpp"
#include "reports/result_json.hpp"
#include "reports/text_report.hpp"
#include "reports/trace_json.hpp"

namespace redlock_sim::cli {
namespace {

namespace po = boost::program_options;

int run_run(const std::vector<std::string>& arguments) {
  po::options_description options("redlock-sim run FILE [options]");
  options.add_options()("help,h", "show this help")("seed", po::value<uint64_t>(),
                                                    "root seed (default: the scenario's)")(
      "json", po::value<std::string>(), "write the JSON result to PATH ('-': standard output)")(
      "timeline", "print the whole run as a text timeline in true time")(
      "html", po::value<std::string>(), "write a self-contained HTML report to PATH")(
      "trace", po::value<std::string>(), "write every event of the run as JSON to PATH");
  po::variables_map values;
  if (auto done = parse_with_file(
          arguments, options, "run",
          "Runs one scenario file and checks mutual exclusion, resource safety and\n"
          "liveness. Exit 0: expectations met; 1: not met; 2: bad input.",
          values)) {
    return *done;
  }
  if (auto failed = check_output_flags("run", values, {"json", "html", "trace"})) return *failed;
  const std::string file = values["file"].as<std::string>();
  const std::optional<Scenario> loaded = load_scenario(file, registry_profile_check());
  if (!loaded) return exit_bad_input;
  const Scenario& scenario = *loaded;
  RunOptions run_options;
  if (values.count("seed")) run_options.seed = values["seed"].as<uint64_t>();
  // The HTML report draws messages and the trace export lists them: keep their text and fate.
  if (values.count("html") || values.count("trace")) run_options.message_log_max = 200'000;
  const ScenarioResult result = run_scenario(scenario, registry_lock_factory(), run_options);

  const bool json_to_stdout = values.count("json") && values["json"].as<std::string>() == "-";
  if (values.count("json")) {
    const std::string text = result_json_text(result);
    if (json_to_stdout) {
      std::fwrite(text.data(), 1, text.size(), stdout);
    } else if (!write_file(values["json"].as<std::string>(), text)) {
      std::fprintf(stderr, "redlock-sim: cannot write %s\n",
                   values["json"].as<std::string>().c_str());
      return exit_bad_input;
    }
  }
  const auto write_report = [&](const char* flag, const std::function<std::string()>& render) {
    if (!values.count(flag)) return true;
    const std::string path = values[flag].as<std::string>();
    if (write_file(path, render())) return true;
    std::fprintf(stderr, "redlock-sim: cannot write %s\n", path.c_str());
    return false;
  };
  if (!write_report("html", [&] { return html_report(result, {.program = program_name()}); }))
    return exit_bad_input;
  if (values.count("trace")) {  // streamed: the export is never held whole in memory
    const std::string path = values["trace"].as<std::string>();
    std::ofstream out(path, std::ios::binary);
    write_trace_json(out, result);
    out.close();
    if (!out) {
      std::fprintf(stderr, "redlock-sim: cannot write %s\n", path.c_str());
      return exit_bad_input;
    }
  }
  // With the JSON on standard output, the people's report goes to standard error.
  std::FILE* people = json_to_stdout ? stderr : stdout;
  const std::string command =
      program_name() + " run " + file + " --seed " + std::to_string(result.seed);
  const std::string summary = summary_text(result, scenario.description, command);
  std::fwrite(summary.data(), 1, summary.size(), people);
  if (values.count("timeline")) {
    const std::string timeline = "\n" + timeline_text(result);
    std::fwrite(timeline.data(), 1, timeline.size(), people);
  }
  return result.expectations_met ? exit_ok : exit_failed;
}

const Registrar registrar({"run", "run one scenario file: verdicts, the story, JSON", &run_run});

}  // namespace
}  // namespace redlock_sim::cli
