#include "cli/real_wiring.hpp"

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
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
  struct sigaction action{};
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

std::string real_timing_text(const real::RealReport& report) {
  std::ostringstream out;
  const auto ms = [](int64_t us) {
    std::ostringstream t;
    t << us / 1000 << "." << (std::abs(us) % 1000) / 100 << " ms";
    return t.str();
  };
  out << "\nReal run (" << report.wall_ms << " ms of wall time): " << report.actions.size()
      << " scheduled fault(s) and step(s), late by " << ms(report.late_us_median)
      << " median, " << ms(report.late_us_max) << " at most; proxy deliveries late by "
      << ms(report.proxy_late_us_max) << " at most.\n";
  for (const real::ActionTiming& a : report.actions) {
    out << "  " << a.scheduled_ms << " ms  " << a.what << "  late " << ms(a.late_us) << "\n";
  }
  for (const std::string& warning : report.warnings)
    out << "  warning: " << warning << "\n";
  return out.str();
}

}  // namespace redlock_sim::cli
