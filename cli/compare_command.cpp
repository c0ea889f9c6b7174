// `redlock-sim compare A B [--html PATH]`: two scenario files run and set side by side (fenced vs
// unfenced, a fix vs the bug): their verdicts in a table, and on request one page with both
// reports on one true-time axis. Exit 0 when both ran, 2 on bad input.
#include <boost/program_options.hpp>
#include <cstdio>
#include <iostream>

#include "api/lock_wiring.hpp"
#include "cli/command.hpp"
#include "cli/options.hpp"
#include "reports/compare_report.hpp"

namespace redlock_sim::cli {
namespace {

namespace po = boost::program_options;

int run_compare(const std::vector<std::string>& arguments) {
  po::options_description options("redlock-sim compare FILE_A FILE_B [options]");
  options.add_options()("help,h", "show this help")(
      "seed", po::value<uint64_t>(), "root seed of both runs (default: each file's)")(
      "html", po::value<std::string>(), "write both reports on one time axis to PATH");
  po::variables_map values;
  if (auto done = parse_with_positionals(
          arguments, options, "compare",
          "Runs two scenario files and compares their verdicts; --html puts both reports\n"
          "on one page with one time axis.",
          values, "file", -1))
    return *done;
  const auto files = values.count("file") ? values["file"].as<std::vector<std::string>>()
                                          : std::vector<std::string>{};
  if (files.size() != 2) return bad_input("compare: give two scenario files");
  if (auto failed = check_output_flags("compare", values, {"html"})) return *failed;
  std::optional<Scenario> scenarios[2];
  for (int i = 0; i < 2; ++i) {
    scenarios[i] = load_scenario(files[i], registry_profile_check());
    if (!scenarios[i]) return exit_bad_input;
  }
  RunOptions run_options{.message_log_max = values.count("html") ? 200'000u : 0u};
  if (values.count("seed")) run_options.seed = values["seed"].as<uint64_t>();
  const ScenarioResult a = run_scenario(*scenarios[0], registry_lock_factory(), run_options);
  const ScenarioResult b = run_scenario(*scenarios[1], registry_lock_factory(), run_options);
  const CompareSide side_a{&a, files[0]};
  const CompareSide side_b{&b, files[1]};
  if (values.count("html") &&
      !write_file(values["html"].as<std::string>(), compare_html(side_a, side_b, program_name()))) {
    std::fprintf(stderr, "redlock-sim: compare: cannot write %s\n",
                 values["html"].as<std::string>().c_str());
    return exit_bad_input;
  }
  const std::string text = compare_text(side_a, side_b);
  std::fwrite(text.data(), 1, text.size(), stdout);
  return exit_ok;
}

const Registrar registrar({"compare", "run two scenario files; verdicts and reports side by side",
                           &run_compare});

}  // namespace
}  // namespace redlock_sim::cli
