// `redlock-sim serve [FILE...]`: a local web playground on 127.0.0.1. A person picks a scenario,
// edits its numbers or its JSON, and sees the verdicts, the story and the HTML report of the new
// run at once; sweeps one number; shares a link that carries the edited scenario. Bad input in
// the page gets the CLI's own message (docs/playground.md).
#include <httplib.h>

#include <algorithm>
#include <boost/program_options.hpp>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <variant>

#include "api/lock_wiring.hpp"
#include "cli/command.hpp"
#include "cli/options.hpp"
#include "cli/playground_page.hpp"
#include "cli/sweep.hpp"
#include "reports/html_report.hpp"
#include "reports/sweep_report.hpp"
#include "reports/text_report.hpp"
#include "scenarios/lint.hpp"

#ifndef REDLOCK_SOURCE_DIR
#define REDLOCK_SOURCE_DIR "."
#endif

namespace redlock_sim::cli {
namespace {

namespace po = boost::program_options;
namespace fs = std::filesystem;
using nlohmann::json;

// A sweep from the page answers while a person waits: fewer runs than the command's default.
constexpr std::size_t served_sweep_runs_max = 2'000;

struct Offered {
  std::string name;  // the file's stem
  std::string description;
  std::string text;
};

std::optional<std::string> read_text(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// The files given, or every catalogue scenario; a file the parser refuses is refused here, with
// its message, as `run` would.
std::optional<std::vector<Offered>> offered_scenarios(const std::vector<std::string>& files) {
  std::vector<fs::path> paths;
  if (files.empty()) {
    const fs::path folder = fs::path(REDLOCK_SOURCE_DIR) / "scenarios";
    std::error_code error;
    for (fs::directory_iterator it(folder, error), end; !error && it != end; it.increment(error))
      if (it->path().extension() == ".json") paths.push_back(it->path());
    std::sort(paths.begin(), paths.end());
  } else {
    paths.assign(files.begin(), files.end());
  }
  std::vector<Offered> out;
  for (const fs::path& path : paths) {
    // Parsed without the linter's warnings: the catalogue's deliberate oddities are its stories.
    try {
      const Scenario scenario = parse_scenario_file(path.string(), registry_profile_check());
      out.push_back({path.stem().string(), scenario.description, *read_text(path)});
    } catch (const ScenarioError& error) {
      std::fprintf(stderr, "redlock-sim: %s\n", error.what());
      return std::nullopt;
    }
  }
  return out;
}

// The scenario in a request's body, or the CLI's message for it ("redlock-sim: FILE: $...").
std::variant<Scenario, std::string> parse_body(const httplib::Request& request,
                                               const std::string& source) {
  try {
    return parse_scenario_text(request.body, source, registry_profile_check());
  } catch (const ScenarioError& error) {
    return std::string("redlock-sim: ") + error.what();
  }
}

std::string source_name(const httplib::Request& request) {
  const std::string file = request.get_param_value("file");
  return file.empty() ? "playground.json" : file;
}

void reply_json(httplib::Response& response, const json& body) {
  response.set_content(body.dump(), "application/json");
}

void handle_run(const httplib::Request& request, httplib::Response& response) {
  const std::string source = source_name(request);
  auto parsed = parse_body(request, source);
  if (auto* message = std::get_if<std::string>(&parsed)) {
    reply_json(response, {{"ok", false}, {"error", *message}});
    return;
  }
  const Scenario& scenario = std::get<Scenario>(parsed);
  json warnings = json::array();
  for (const std::string& warning : scenario_warnings(scenario))
    warnings.push_back("redlock-sim: warning: " + source + ": " + warning);
  RunOptions options{.message_log_max = 200'000};
  const ScenarioResult result = run_scenario(scenario, registry_lock_factory(), options);
  const std::string command =
      program_name() + " run " + source + " --seed " + std::to_string(result.seed);
  reply_json(response, {{"ok", true},
                        {"verdicts",
                         {{"mutual_exclusion", verdict_name(result.mutual_exclusion)},
                          {"resource_safety", verdict_name(result.resource_safety)},
                          {"liveness", verdict_name(result.liveness)}}},
                        {"expectations_met", result.expectations_met},
                        {"warnings", warnings},
                        {"summary", summary_text(result, scenario.description, command)},
                        {"report", html_report(result, {.program = program_name()})}});
}

void handle_sweep(const httplib::Request& request, httplib::Response& response) {
  const std::string source = source_name(request);
  auto parsed = parse_body(request, source);
  if (auto* message = std::get_if<std::string>(&parsed)) {
    reply_json(response, {{"ok", false}, {"error", *message}});
    return;
  }
  const Scenario& scenario = std::get<Scenario>(parsed);
  SweepSetup setup{.file = source,
                   .document = json::parse(request.body),
                   .check = registry_profile_check(),
                   .factory = registry_lock_factory(),
                   .jobs = 2,
                   .runs_max = served_sweep_runs_max};
  std::vector<std::string> varies;
  for (std::size_t i = 0; i < request.get_param_value_count("vary"); ++i)
    varies.push_back(request.get_param_value("vary", i));
  if (auto failed = configure_sweep(setup, varies, {}, {})) {
    reply_json(response, {{"ok", false}, {"error", "redlock-sim: " + *failed}});
    return;
  }
  SweepResult result = run_sweep(setup);
  result.scenario = scenario.name;
  result.seed = scenario.seed;
  reply_json(response,
             {{"ok", true}, {"summary", sweep_summary_text(result)}, {"page", sweep_html(result)}});
}

int run_serve(const std::vector<std::string>& arguments) {
  po::options_description options("redlock-sim serve [FILE...] [options]");
  unsigned port = 0;
  options.add_options()("help,h", "show this help")(
      "port", po::value<unsigned>(&port)->default_value(0),
      "the port on 127.0.0.1 (0: a free one, printed at start)");
  po::variables_map values;
  if (auto done = parse_with_positionals(
          arguments, options, "serve",
          "A local web playground on 127.0.0.1: pick a scenario (FILEs, or the catalogue), edit\n"
          "its numbers or JSON, see the new run's verdicts and report, sweep a number, share a\n"
          "link. Stop it with Ctrl-C.",
          values, "file", -1))
    return *done;
  if (port > 65535) return bad_input("serve: --port must be in [0, 65535]");
  const auto files = values.count("file") ? values["file"].as<std::vector<std::string>>()
                                          : std::vector<std::string>{};
  const std::optional<std::vector<Offered>> offered = offered_scenarios(files);
  if (!offered) return exit_bad_input;
  if (offered->empty()) return bad_input("serve: no scenario to offer");

  httplib::Server server;
  server.set_payload_max_length(scenario_file_bytes_max);
  server.Get("/", [](const httplib::Request&, httplib::Response& response) {
    response.set_content(playground_page, "text/html; charset=utf-8");
  });
  // Browsers ask for an icon: nothing, rather than a 404 in the console.
  server.Get("/favicon.ico",
             [](const httplib::Request&, httplib::Response& response) { response.status = 204; });
  server.Get("/api/scenarios", [&](const httplib::Request&, httplib::Response& response) {
    json list = json::array();
    for (const Offered& o : *offered)
      list.push_back({{"name", o.name}, {"description", o.description}});
    reply_json(response, list);
  });
  server.Get("/api/scenario", [&](const httplib::Request& request, httplib::Response& response) {
    const std::string name = request.get_param_value("name");
    for (const Offered& o : *offered) {
      if (o.name != name) continue;
      response.set_content(o.text, "application/json");
      return;
    }
    response.status = 404;
    response.set_content("no scenario '" + name + "'\n", "text/plain");
  });
  server.Post("/api/run", handle_run);
  server.Post("/api/sweep", handle_sweep);
  // Loopback only: the playground runs code on request and is nobody else's business.
  const int bound =
      port == 0 ? server.bind_to_any_port("127.0.0.1")
                : (server.bind_to_port("127.0.0.1", static_cast<int>(port)) ? static_cast<int>(port)
                                                                            : -1);
  if (bound <= 0) return bad_input("serve: cannot listen on 127.0.0.1:" + std::to_string(port));
  std::printf("redlock-sim serve: http://127.0.0.1:%d/ (%zu scenarios; Ctrl-C stops it)\n", bound,
              offered->size());
  std::fflush(stdout);
  server.listen_after_bind();
  return exit_ok;
}

const Registrar registrar({"serve",
                           "a local web playground on 127.0.0.1: edit a scenario, see the run",
                           &run_serve});

}  // namespace
}  // namespace redlock_sim::cli
