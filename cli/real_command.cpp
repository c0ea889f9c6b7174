// `redlock-sim real FILE`: stages one scenario for real (real redis-servers, real client
// processes, real faults) and judges it with the simulator's checkers. The same outputs as `run`
// (verdicts, story, --json, --html, --timeline), plus how late each real action happened.
// Exit 0 when every expectation in the file is met, 1 otherwise, 2 on bad input or when the file
// cannot be staged (nothing is left running either way).
#include <algorithm>
#include <boost/program_options.hpp>
#include <cstdio>
#include <functional>

#include "api/lock_wiring.hpp"
#include "cli/command.hpp"
#include "cli/options.hpp"
#include "cli/real_wiring.hpp"
#include "reports/html_report.hpp"
#include "reports/result_json.hpp"
#include "reports/text_report.hpp"

namespace redlock_sim::cli {
namespace {

namespace po = boost::program_options;

nlohmann::json timing_json(const real::RealReport& report) {
  nlohmann::json actions = nlohmann::json::array();
  for (const real::ActionTiming& a : report.actions)
    actions.push_back({{"what", a.what}, {"scheduled_ms", a.scheduled_ms}, {"late_us", a.late_us}});
  nlohmann::json failover = nlohmann::json::array();
  for (const real::ActionTiming& e : report.failover_events)
    failover.push_back({{"what", e.what}, {"at_ms", e.scheduled_ms}});
  return {{"actions", actions},
          {"failover_events", failover},
          {"late_us_max", report.late_us_max},
          {"late_us_median", report.late_us_median},
          {"proxy_late_us_max", report.proxy_late_us_max},
          {"warnings", report.warnings},
          {"wall_ms", report.wall_ms}};
}

int run_real_command(const std::vector<std::string>& arguments) {
  po::options_description options("redlock-sim real FILE [options]");
  options.add_options()("help,h", "show this help")(
      "seed", po::value<uint64_t>(),
      "root seed (default: the scenario's): the network's draws and each client's random bytes")(
      "json", po::value<std::string>(), "write the JSON result to PATH ('-': standard output)")(
      "timeline", "print the whole run as a text timeline in true time")(
      "html", po::value<std::string>(), "write a self-contained HTML report to PATH")(
      "redis-server", po::value<std::string>()->default_value("redis-server"),
      "the redis-server binary (a path, or a name on PATH)")(
      "port-base", po::value<unsigned>(),
      "put the nodes on ports N, N+1, ... of 127.0.0.1 (default: free ports)")(
      "keep-folder", "keep the run's temporary folder (node and client logs)")(
      "driver", po::value<std::string>(),
      "run the clients whose profile the named driver of drivers/ covers with the real library")(
      "driver-command", po::value<std::string>(),
      "run clients with this command instead (a driver of your own; see docs/real-mode.md)")(
      "driver-profiles", po::value<std::string>(),
      "with --driver-command: only the clients of these profiles (comma-separated)");
  po::variables_map values;
  if (auto done = parse_with_file(
          arguments, options, "real",
          "Stages one scenario file with real redis-servers and real client processes on\n"
          "127.0.0.1, applies its faults for real, and checks it with the simulator's checkers.\n"
          "Exit 0: expectations met; 1: not met; 2: bad input or a file that cannot be staged.",
          values)) {
    return *done;
  }
  if (auto failed = check_output_flags("real", values, {"json", "html"})) return *failed;
  const std::string file = values["file"].as<std::string>();
  const std::optional<Scenario> loaded = load_scenario(file, registry_profile_check());
  if (!loaded) return exit_bad_input;
  Scenario scenario = *loaded;
  if (values.count("seed")) scenario.seed = values["seed"].as<uint64_t>();
  if (auto reason = real::unstageable_reason(scenario)) {
    return bad_input("real: " + file + ": cannot be staged: " + *reason);
  }
  real::RealOptions real_options_value;
  if (auto error = real_options(values["redis-server"].as<std::string>(), real_options_value)) {
    return bad_input("real: " + *error);
  }
  if (values.count("port-base")) {
    const unsigned base = values["port-base"].as<unsigned>();
    if (base < 1024 || base + scenario.nodes.size() > 65535) {
      return bad_input("real: --port-base must leave room for every node in 1024..65535");
    }
    real_options_value.port_base = static_cast<int>(base);
  }
  real_options_value.keep_folder = values.count("keep-folder") > 0;
  if (auto error = drivers_from_flags(values, real_options_value)) {
    return bad_input("real: " + *error);
  }
  for (const real::DriverSpec& driver : real_options_value.drivers) {
    const bool used =
        driver.profiles.empty() ||
        std::any_of(scenario.clients.begin(), scenario.clients.end(), [&](const ClientSpec& c) {
          return std::find(driver.profiles.begin(), driver.profiles.end(), c.profile) !=
                 driver.profiles.end();
        });
    if (!used) {
      return bad_input("real: no client of " + file + " has a profile driver " + driver.name +
                       " runs");
    }
  }
  if (auto reason = real::unstageable_reason(scenario, real_options_value.drivers)) {
    return bad_input("real: " + file + ": cannot be staged: " + *reason);
  }
  install_real_interrupt_handlers();
  std::string error;
  const std::optional<real::RealRun> run = real::run_real(scenario, real_options_value, error);
  if (real_interrupted) {
    std::fprintf(stderr, "redlock-sim real: interrupted; everything it started is stopped\n");
    return exit_failed;
  }
  if (!run) return bad_input("real: " + file + ": " + error);
  const ScenarioResult& result = run->result;

  const bool json_to_stdout = values.count("json") && values["json"].as<std::string>() == "-";
  if (values.count("json")) {
    nlohmann::json j = result_json(result);
    j["real"] = timing_json(run->report);
    const std::string text = j.dump(2) + "\n";
    if (json_to_stdout) {
      std::fwrite(text.data(), 1, text.size(), stdout);
    } else if (!write_file(values["json"].as<std::string>(), text)) {
      std::fprintf(stderr, "redlock-sim: cannot write %s\n",
                   values["json"].as<std::string>().c_str());
      return exit_bad_input;
    }
  }
  if (values.count("html") && !write_file(values["html"].as<std::string>(),
                                          html_report(result, {.program = program_name()}))) {
    std::fprintf(stderr, "redlock-sim: cannot write %s\n",
                 values["html"].as<std::string>().c_str());
    return exit_bad_input;
  }
  std::FILE* people = json_to_stdout ? stderr : stdout;
  const std::string command =
      program_name() + " real " + file + " --seed " + std::to_string(scenario.seed);
  std::string text = summary_text(result, scenario.description + " [staged for real]", command);
  text += real_timing_text(run->report);
  if (values.count("timeline")) text += "\n" + timeline_text(result);
  std::fwrite(text.data(), 1, text.size(), people);
  return result.expectations_met ? exit_ok : exit_failed;
}

const Registrar registrar({"real", "stage one scenario with real redis-servers and processes",
                           &run_real_command});

}  // namespace
}  // namespace redlock_sim::cli
