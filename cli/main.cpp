// redlock-sim: parses the subcommand and dispatches; every subcommand lives in its own file.
#include <algorithm>
#include <cstdio>
#include <exception>
#include <string>
#include <vector>

#include "cli/command.hpp"
#include "reports/tool_version.hpp"

namespace redlock_sim::cli {

namespace {
std::vector<Command>& registry() {
  static std::vector<Command> list;
  return list;
}

void print_usage(std::FILE* out) {
  std::fprintf(out,
               "redlock-sim: deterministic fault-injection simulator for Redis-based locks\n\n"
               "usage: redlock-sim <command> [options]\n\ncommands:\n");
  for (const Command& command : commands()) {
    std::fprintf(out, "  %-10s %s\n", command.name, command.summary);
  }
  std::fprintf(out, "\n'redlock-sim <command> --help' describes one command.\n");
}
}  // namespace

const std::vector<Command>& commands() {
  std::vector<Command>& list = registry();
  std::sort(list.begin(), list.end(), [](const Command& a, const Command& b) {
    return std::string(a.name) < std::string(b.name);
  });
  return list;
}

Registrar::Registrar(Command command) {
  registry().push_back(command);
}

namespace {
std::string& program_name_storage() {
  static std::string name = "redlock-sim";
  return name;
}
}  // namespace

const std::string& program_name() {
  return program_name_storage();
}

namespace {
std::string& started_as_storage() {
  static std::string path = "redlock-sim";
  return path;
}
}  // namespace

const std::string& started_as() {
  return started_as_storage();
}

void set_program_name(const char* argv0) {
  const std::string given = argv0 == nullptr ? "" : argv0;
  if (!given.empty()) started_as_storage() = given;
  if (given.find('/') == std::string::npos) return;
  const bool plain = given.find_first_not_of(
                         "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
                         "0123456789_./+-") == std::string::npos;
  if (plain) {
    program_name_storage() = given;
    return;
  }
  std::string quoted = "'";
  for (char c : given)
    quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
  program_name_storage() = quoted + "'";
}

int bad_input(const std::string& message) {
  std::fprintf(stderr, "redlock-sim: %s\n(try 'redlock-sim --help')\n", message.c_str());
  return exit_bad_input;
}

}  // namespace redlock_sim::cli

int main(int argc, char** argv) {
  using namespace redlock_sim::cli;
  set_program_name(argc > 0 ? argv[0] : nullptr);
  std::vector<std::string> arguments(argv + 1, argv + argc);
  if (arguments.empty() || arguments[0] == "--help" || arguments[0] == "-h" ||
      arguments[0] == "help") {
    print_usage(stdout);
    return arguments.empty() ? exit_bad_input : exit_ok;
  }
  if (arguments[0] == "--version") {
    std::printf("redlock-sim %s (commit %s)\n", redlock_sim::tool_version(),
                redlock_sim::tool_commit());
    return exit_ok;
  }
  for (const Command& command : commands()) {
    if (arguments[0] != command.name) continue;
    try {
      return command.run({arguments.begin() + 1, arguments.end()});
    } catch (const std::exception& error) {
      std::fprintf(stderr, "redlock-sim %s: internal error: %s\n", command.name, error.what());
      return 3;
    }
  }
  return bad_input("unknown command '" + arguments[0] + "'");
}
