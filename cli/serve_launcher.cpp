// `redlock-sim serve`: the playground's HTTP server is its own executable, redlock-sim-serve,
// built beside this one (cli/serve_command.cpp). cpp-httplib links OpenSSL, and loading those
// libraries was three quarters of the start-up of every other command, which never serve a page
// (docs/decisions.md, "The playground server in its own executable"). This command hands its
// arguments over by exec: the same process, so the same exit code, signals and output.
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "cli/command.hpp"

namespace redlock_sim::cli {
namespace {

int run_serve(const std::vector<std::string>& arguments) {
  std::error_code error;
  const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", error);
  if (error) return bad_input("serve: cannot find the redlock-sim executable (/proc/self/exe)");
  const std::filesystem::path server = self.parent_path() / "redlock-sim-serve";
  if (!std::filesystem::exists(server, error)) {
    return bad_input("serve: the playground server is missing: " + server.string() +
                     " (it is built beside redlock-sim: rebuild with scripts/build.sh)");
  }
  // Started as this tool was (argv[0] as given, not the shell-quoted program name), so its
  // messages and reproduce lines name it the same way.
  std::vector<std::string> words = {started_as(), "serve"};
  words.insert(words.end(), arguments.begin(), arguments.end());
  std::vector<char*> argv;
  for (std::string& word : words)
    argv.push_back(word.data());
  argv.push_back(nullptr);
  std::fflush(stdout);
  std::fflush(stderr);
  ::execv(server.c_str(), argv.data());
  return bad_input("serve: cannot start " + server.string() + ": " + std::strerror(errno));
}

const Registrar registrar({"serve",
                           "a local web playground on 127.0.0.1: edit a scenario, see the run",
                           &run_serve});

}  // namespace
}  // namespace redlock_sim::cli
