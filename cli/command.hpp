// Subcommands register themselves here, one file each, so adding one touches no other file.
#pragma once

#include <string>
#include <vector>

namespace redlock_sim::cli {

// Exit codes, the contract users and CI rely on (README, "Exit codes").
inline constexpr int exit_ok = 0;
inline constexpr int exit_failed = 1;     // a verdict or expectation failed
inline constexpr int exit_bad_input = 2;  // bad flags, files or commands: nothing was run

struct Command {
  const char* name;
  const char* summary;
  // Receives the arguments after the subcommand name; returns the exit code.
  int (*run)(const std::vector<std::string>& arguments);
};

const std::vector<Command>& commands();

struct Registrar {
  explicit Registrar(Command command);
};

// How to start this tool again in a line a person pastes: the path it was started by when that
// has a slash (build/redlock-sim, /usr/local/bin/redlock-sim), else "redlock-sim" (found on the
// PATH), shell-quoted when it needs to be.
const std::string& program_name();
void set_program_name(const char* argv0);
// The path this tool was started by, as given (argv[0], unquoted; "redlock-sim" when empty): what
// another program started in its place is given as its argv[0].
const std::string& started_as();

// Prints "redlock-sim: <message>" and a hint, and returns exit_bad_input.
int bad_input(const std::string& message);

}  // namespace redlock_sim::cli
