// Command-line parsing shared by the subcommands that take one scenario FILE.
#pragma once

#include <boost/program_options.hpp>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include "cli/command.hpp"
#include "scenarios/lint.hpp"
#include "scenarios/parser.hpp"

namespace redlock_sim::cli {

// Boost reads "-1" into an unsigned option as 2^64 - 1 and runs with that; refuse a sign on any
// unsigned option instead, with Boost's own wording.
inline void reject_signs_on_unsigned(const boost::program_options::parsed_options& parsed) {
  namespace po = boost::program_options;
  if (parsed.description == nullptr) return;
  for (const po::option& o : parsed.options) {
    if (o.string_key.empty()) continue;
    const po::option_description* d = parsed.description->find_nothrow(o.string_key, false);
    if (d == nullptr) continue;
    const po::value_semantic* semantic = d->semantic().get();
    const bool is_unsigned = dynamic_cast<const po::typed_value<unsigned long>*>(semantic) ||
                             dynamic_cast<const po::typed_value<unsigned long long>*>(semantic) ||
                             dynamic_cast<const po::typed_value<unsigned>*>(semantic);
    if (!is_unsigned) continue;
    for (const std::string& token : o.value) {
      if (!token.empty() && (token[0] == '-' || token[0] == '+')) {
        throw po::error("the argument ('" + token + "') for option '--" + o.string_key +
                        "' is invalid: it takes a number of 0 or more, without a sign");
      }
    }
  }
}

// po::store after the check above: what every subcommand uses.
inline void store_checked(const boost::program_options::parsed_options& parsed,
                          boost::program_options::variables_map& values) {
  reject_signs_on_unsigned(parsed);
  boost::program_options::store(parsed, values);
}

// " (did you mean 'a', 'b'?)" for the known names that contain `given` or that it contains, or
// a pointer to the list; appended to "unknown ..." messages.
inline std::string name_hint(const std::string& given, const std::vector<std::string>& known,
                             const std::string& listed_by) {
  std::string close;
  int count = 0;
  for (const std::string& name : known) {
    const bool related = !given.empty() && (name.find(given) != std::string::npos ||
                                            given.find(name) != std::string::npos);
    if (!related || count == 3) continue;
    close += std::string(count++ == 0 ? "" : ", ") + "'" + name + "'";
  }
  if (count > 0) return " (did you mean " + close + "?)";
  return " (" + listed_by + " lists them)";
}

// The non-empty items of a comma-separated flag value.
inline std::vector<std::string> split_list(const std::string& text) {
  std::vector<std::string> out;
  std::size_t from = 0;
  while (from <= text.size()) {
    const std::size_t comma = std::min(text.find(',', from), text.size());
    if (comma > from) out.push_back(text.substr(from, comma - from));
    from = comma + 1;
  }
  return out;
}

// Long flags must be spelled out: Boost would otherwise read `--js` as `--json`.
inline int command_line_style() {
  namespace style = boost::program_options::command_line_style;
  return style::default_style & ~style::allow_guessing;
}

// Parses and stores a subcommand's flags; stray positional arguments are an error. Throws
// boost::program_options::error.
inline void parse_flags(const std::vector<std::string>& arguments,
                        const boost::program_options::options_description& options,
                        boost::program_options::variables_map& values) {
  namespace po = boost::program_options;
  const po::positional_options_description none;
  store_checked(po::command_line_parser(arguments)
                    .options(options)
                    .positional(none)
                    .style(command_line_style())
                    .run(),
                values);
  po::notify(values);
}

// A writable folder: a probe file can be created in it (and is removed).
inline bool folder_is_writable(const std::filesystem::path& folder) {
  const std::filesystem::path probe = folder / ".redlock-sim-write-probe";
  {
    std::ofstream out(probe, std::ios::binary);
    if (!out) return false;
  }
  std::error_code error;
  std::filesystem::remove(probe, error);
  return true;
}

// Reads a scenario file with the registry's profile check; on a mistake, prints the one message
// and returns nothing (the caller exits with exit_bad_input).
inline std::optional<Scenario> load_scenario(const std::string& file, const ProfileCheck& check) {
  try {
    Scenario scenario = parse_scenario_file(file, check);
    // A file that parses can still not be what its author meant: said once, on stderr.
    for (const std::string& warning : scenario_warnings(scenario))
      std::fprintf(stderr, "redlock-sim: warning: %s: %s\n", file.c_str(), warning.c_str());
    return scenario;
  } catch (const ScenarioError& error) {
    std::fprintf(stderr, "redlock-sim: %s\n", error.what());
    return std::nullopt;
  }
}

// Creates an output folder before any work is done, so a bad --out stops at once with exit 2
// rather than after minutes of exploration.
inline std::optional<int> prepare_out_dir(const std::string& command, const std::string& dir) {
  std::error_code error;
  std::filesystem::create_directories(dir, error);
  if (error || !std::filesystem::is_directory(dir, error)) {
    return bad_input(command + ": --out: cannot create the folder '" + dir + "'");
  }
  if (!folder_is_writable(dir)) {
    return bad_input(command + ": --out: cannot write in the folder '" + dir + "'");
  }
  return std::nullopt;
}

// An output file's folder must exist before any work is done (checked up front, like --out).
inline std::optional<int> check_output_file(const std::string& command, const std::string& flag,
                                            const std::string& path) {
  if (path == "-") {
    return bad_input(command + ": " + flag +
                     ": give a file name ('-' is not standard output here)");
  }
  std::filesystem::path folder = std::filesystem::path(path).parent_path();
  if (folder.empty()) folder = ".";
  std::error_code error;
  if (path.empty() || !std::filesystem::is_directory(folder, error)) {
    return bad_input(command + ": " + flag + ": no folder '" + folder.string() + "' for '" + path +
                     "'");
  }
  if (std::filesystem::is_directory(path, error)) {
    return bad_input(command + ": " + flag + ": '" + path + "' is a folder; give a file name");
  }
  if (!folder_is_writable(folder)) {
    return bad_input(command + ": " + flag + ": cannot write in the folder '" + folder.string() +
                     "'");
  }
  return std::nullopt;
}

// The output flags a command was given (`--json -` is standard output), each checked up front.
inline std::optional<int> check_output_flags(const std::string& command,
                                             const boost::program_options::variables_map& values,
                                             std::initializer_list<const char*> flags) {
  for (const char* flag : flags) {
    if (!values.count(flag)) continue;
    const std::string path = values[flag].as<std::string>();
    if (std::string(flag) == "json" && path == "-") continue;
    if (auto failed = check_output_file(command, std::string("--") + flag, path)) return failed;
  }
  return std::nullopt;
}

// Writes a whole file; false when it could not.
inline bool write_file(const std::filesystem::path& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
  out.close();
  return static_cast<bool>(out);
}

// Parses `arguments` with `options` plus positional arguments stored as `positional_name`: one
// string (count 1) or a vector of strings (count -1, any number). Returns an exit code when the
// command is done (bad flags: exit_bad_input with one message; --help: `about`, a blank line and
// the options, exit_ok), or nothing when it should run.
inline std::optional<int> parse_with_positionals(
    const std::vector<std::string>& arguments,
    const boost::program_options::options_description& options, const std::string& command,
    const std::string& about, boost::program_options::variables_map& values,
    const char* positional_name, int count) {
  namespace po = boost::program_options;
  po::options_description hidden;
  if (count == 1) {
    hidden.add_options()(positional_name, po::value<std::string>());
  } else {
    hidden.add_options()(positional_name, po::value<std::vector<std::string>>());
  }
  po::options_description all;
  all.add(options).add(hidden);
  po::positional_options_description positional;
  positional.add(positional_name, count);
  try {
    store_checked(po::command_line_parser(arguments)
                      .options(all)
                      .positional(positional)
                      .style(command_line_style())
                      .run(),
                  values);
    po::notify(values);
  } catch (const po::error& error) {
    return bad_input(command + ": " + error.what());
  }
  if (values.count("help")) {
    std::cout << about << "\n\n" << options << "\n";
    return exit_ok;
  }
  return std::nullopt;
}

// The same with one positional FILE (stored as "file"), which must be given.
inline std::optional<int> parse_with_file(
    const std::vector<std::string>& arguments,
    const boost::program_options::options_description& options, const std::string& command,
    const std::string& about, boost::program_options::variables_map& values) {
  if (auto done = parse_with_positionals(arguments, options, command, about, values, "file", 1))
    return done;
  if (!values.count("file")) return bad_input(command + ": missing the scenario FILE");
  return std::nullopt;
}

}  // namespace redlock_sim::cli
