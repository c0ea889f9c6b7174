// Command-line parsing shared by the subcommands that take one scenario FILE.
#pragma once

#include <boost/program_options.hpp>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include "cli/command.hpp"

namespace redlock_sim::cli {

// Parses `arguments` with `options` plus one positional FILE (stored as "file"). Returns an exit
// code when the command is done (bad flags: exit_bad_input with one message; --help: the help,
// exit_ok), or nothing when it should run.
inline std::optional<int> parse_with_file(
    const std::vector<std::string>& arguments,
    const boost::program_options::options_description& options, const std::string& command,
    const std::string& about, boost::program_options::variables_map& values) {
  namespace po = boost::program_options;
  po::options_description hidden;
  hidden.add_options()("file", po::value<std::string>());
  po::options_description all;
  all.add(options).add(hidden);
  po::positional_options_description positional;
  positional.add("file", 1);
  try {
    po::store(po::command_line_parser(arguments).options(all).positional(positional).run(), values);
    po::notify(values);
  } catch (const po::error& error) {
    return bad_input(command + ": " + error.what());
  }
  if (values.count("help")) {
    std::cout << about << "\n\n" << options << "\n";
    return exit_ok;
  }
  if (!values.count("file")) return bad_input(command + ": missing the scenario FILE");
  return std::nullopt;
}

}  // namespace redlock_sim::cli
