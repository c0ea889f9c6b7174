#include "cli/real_wiring.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

namespace redlock_sim::cli {

volatile std::sig_atomic_t real_interrupted = 0;

namespace {
void on_interrupt(int) {
  real_interrupted = 1;
}

// A program name resolved like execvp would: a path as given, else the first match on PATH.
std::optional<std::string> find_program(const std::string& name) {
  if (name.find('/') != std::string::npos) {
    if (::access(name.c_str(), X_OK) == 0) return name;
    return std::nullopt;
  }
  const char* path = std::getenv("PATH");
  std::stringstream folders(path != nullptr ? path : "/usr/local/bin:/usr/bin:/bin");
  std::string folder;
  while (std::getline(folders, folder, ':')) {
    const std::string candidate = (folder.empty() ? "." : folder) + "/" + name;
    if (::access(candidate.c_str(), X_OK) == 0) return candidate;
  }
  return std::nullopt;
}
}  // namespace

void install_real_interrupt_handlers() {
  struct sigaction action {};
  action.sa_handler = on_interrupt;
  sigemptyset(&action.sa_mask);
  ::sigaction(SIGINT, &action, nullptr);
  ::sigaction(SIGTERM, &action, nullptr);
  ::sigaction(SIGHUP, &action, nullptr);
  std::signal(SIGPIPE, SIG_IGN);
}

std::optional<std::string> real_options(const std::string& redis_server, real::RealOptions& out) {
  const std::optional<std::string> server = find_program(redis_server);
  if (!server) {
    return "redis-server not found ('" + redis_server +
           "'): install Debian's redis-server (apt-get install redis-server) or pass "
           "--redis-server PATH";
  }
  out.redis_server = *server;
  std::error_code error;
  const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", error);
  if (error) return "cannot find the redlock-sim executable (/proc/self/exe)";
  out.client_program = self.string();
  const std::filesystem::path shim = self.parent_path() / "libredlock-clock-shim.so";
  if (!std::filesystem::exists(shim)) {
    return "the clock shim is missing: " + shim.string() + " (rebuild with scripts/build.sh)";
  }
  out.shim_library = shim.string();
  out.interrupted = &real_interrupted;
  return std::nullopt;
}

std::optional<std::string> driver_manifests(std::vector<DriverManifest>& out) {
  const std::filesystem::path root = std::filesystem::path(REDLOCK_SOURCE_DIR) / "drivers";
  std::error_code error;
  if (!std::filesystem::is_directory(root, error)) return std::nullopt;
  std::vector<std::filesystem::path> manifests;
  for (const auto& entry : std::filesystem::directory_iterator(root, error)) {
    const std::filesystem::path manifest = entry.path() / "driver.json";
    if (std::filesystem::exists(manifest)) manifests.push_back(manifest);
  }
  std::sort(manifests.begin(), manifests.end());
  for (const std::filesystem::path& manifest : manifests) {
    std::ifstream in(manifest);
    const nlohmann::json j = nlohmann::json::parse(in, nullptr, false);
    try {
      if (j.is_discarded()) throw std::runtime_error("not JSON");
      DriverManifest d{.name = j.at("name").get<std::string>(),
                       .library = j.value("library", std::string()),
                       .profiles = j.at("profiles").get<std::vector<std::string>>(),
                       .command = j.at("command").get<std::vector<std::string>>(),
                       .requires_programs = j.value("requires", std::vector<std::string>()),
                       .folder = manifest.parent_path().string()};
      if (d.command.empty()) throw std::runtime_error("empty command");
      out.push_back(std::move(d));
    } catch (const std::exception& e) {
      return manifest.string() + ": " + e.what();
    }
  }
  return std::nullopt;
}

std::optional<std::string> driver_by_name(const std::string& name, real::DriverSpec& out) {
  std::vector<DriverManifest> manifests;
  if (auto error = driver_manifests(manifests)) return error;
  std::string known;
  for (const DriverManifest& d : manifests) {
    known += (known.empty() ? "" : ", ") + d.name;
    if (d.name != name) continue;
    for (const std::string& program : d.requires_programs) {
      if (!find_program(program)) {
        return "driver " + name + " needs '" + program + "' on PATH: install it (" +
               "scripts/install-drivers.sh installs every driver's toolchain and packages)";
      }
    }
    out = real::DriverSpec{
        .name = d.name, .profiles = d.profiles, .argv = d.command, .working_directory = d.folder};
    return std::nullopt;
  }
  return "unknown driver '" + name + "' (drivers: " + (known.empty() ? "none" : known) + ")";
}

real::DriverSpec driver_from_command(const std::string& command,
                                     const std::vector<std::string>& profiles) {
  // `sh -c 'CMD "$@"' driver --config JSON`: the command as the user would type it, with the
  // configuration appended as its own arguments.
  return real::DriverSpec{.name = "command '" + command + "'",
                          .profiles = profiles,
                          .argv = {"/bin/sh", "-c", command + " \"$@\"", "driver"},
                          .working_directory = {}};
}

std::optional<std::string> unreachable_library(const std::string& profile) {
  // Libraries no registry of the project's machines offers can never be run for real here.
  static const std::map<std::string, std::string> unreachable = {
      {"redlock-rb", "RubyGems is not reachable from the project's machines"},
      {"redis-plus-plus-redlockmutex", "no registry reachable here packages redis-plus-plus"},
      {"redis-plus-plus-redmutex", "no registry reachable here packages redis-plus-plus"}};
  if (auto it = unreachable.find(profile); it != unreachable.end()) return it->second;
  return std::nullopt;
}

std::string validation_status(const std::string& profile) {
  if (auto reason = unreachable_library(profile)) {
    return "not validated against the real library: " + *reason;
  }
  static const nlohmann::json results = [] {
    std::ifstream in(std::string(REDLOCK_SOURCE_DIR) + "/docs/profile-validation.json");
    nlohmann::json j = nlohmann::json::parse(in, nullptr, false);
    return j.is_discarded() ? nlohmann::json::object() : j;
  }();
  if (!results.contains("profiles") || !results["profiles"].contains(profile)) {
    return "not validated against the real library yet (no driver)";
  }
  const nlohmann::json& r = results["profiles"][profile];
  const uint64_t files = r.value("files", uint64_t{0}) - r.value("unstageable", uint64_t{0});
  const uint64_t agree = r.value("agree", uint64_t{0});
  return std::string(agree == files ? "validated" : "PARTLY validated") + " against " +
         r.value("library", std::string("its library")) + " (" + std::to_string(agree) + " of " +
         std::to_string(files) + " staged files agree)";
}

std::optional<std::string> drivers_from_flags(const boost::program_options::variables_map& values,
                                              real::RealOptions& options) {
  if (values.count("driver") && values.count("driver-command")) {
    return "--driver and --driver-command exclude each other";
  }
  if (values.count("driver-profiles") && !values.count("driver-command")) {
    return "--driver-profiles goes with --driver-command";
  }
  if (values.count("driver")) {
    real::DriverSpec driver;
    if (auto error = driver_by_name(values["driver"].as<std::string>(), driver)) return error;
    options.drivers.push_back(std::move(driver));
  }
  if (values.count("driver-command")) {
    std::vector<std::string> profiles;
    if (values.count("driver-profiles")) {
      std::stringstream list(values["driver-profiles"].as<std::string>());
      std::string name;
      while (std::getline(list, name, ','))
        if (!name.empty()) profiles.push_back(name);
    }
    options.drivers.push_back(
        driver_from_command(values["driver-command"].as<std::string>(), profiles));
  }
  return std::nullopt;
}

std::string real_timing_text(const real::RealReport& report) {
  std::ostringstream out;
  const auto ms = [](int64_t us) {
    std::ostringstream t;
    t << us / 1000 << "." << (std::abs(us) % 1000) / 100 << " ms";
    return t.str();
  };
  out << "\nReal run (" << report.wall_ms << " ms of wall time): " << report.actions.size()
      << " scheduled fault(s) and step(s), late by " << ms(report.late_us_median) << " median, "
      << ms(report.late_us_max) << " at most; proxy deliveries late by "
      << ms(report.proxy_late_us_max) << " at most.\n";
  for (const real::ActionTiming& a : report.actions) {
    out << "  " << a.scheduled_ms << " ms  " << a.what << "  late " << ms(a.late_us) << "\n";
  }
  if (!report.failover_events.empty()) {
    out << "  Sentinel events (true time):";
    for (const real::ActionTiming& e : report.failover_events)
      out << " " << e.what << " " << e.scheduled_ms << " ms;";
    out << "\n";
  }
  for (const std::string& driver : report.drivers)
    out << "  client " << driver << "\n";
  for (const std::string& warning : report.warnings)
    out << "  warning: " << warning << "\n";
  return out.str();
}

}  // namespace redlock_sim::cli
