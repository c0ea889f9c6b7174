// `redlock-sim list`: what can be named in a scenario, section by section, one line each.
//
// Each section is a title and rows of (name, description, details); every section is built in
// `sections()` and prints the same way. The lock sections come from the registry, the scenarios
// from the files of a scenarios folder, the fault kinds from the scenario format and the
// exploration's fault classes.
#include <algorithm>
#include <boost/program_options.hpp>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <string>
#include <vector>

#include "cli/command.hpp"
#include "cli/options.hpp"
#include "cli/real_wiring.hpp"
#include "lock_impls/registry.hpp"
#include "scenarios/parser.hpp"
#include "sim/explore/fault_plan.hpp"
#include "sim/faults/fault_kind.hpp"
#include "sim/scenario/scenario.hpp"

#ifndef REDLOCK_SOURCE_DIR
#define REDLOCK_SOURCE_DIR "."
#endif

namespace redlock_sim::cli {
namespace {

struct ListRow {
  std::string name;
  std::string description;
  std::vector<std::string> details;  // shown with --verbose
};

struct ListSection {
  std::string key;  // what --section selects
  std::string title;
  std::vector<ListRow> rows;
};

std::vector<ListRow> lock_rows(LockKind kind) {
  std::vector<ListRow> rows;
  for (const LockEntry& entry : lock_entries()) {
    if (entry.kind != kind) continue;
    ListRow row{.name = entry.name, .description = entry.description, .details = {}};
    row.details.push_back(std::string(kind == LockKind::zoo ? "correct twin: " : "models: ") +
                          entry.models);
    if (kind == LockKind::profile) {
      const std::string status = validation_status(entry.name);
      row.description += status.rfind("validated", 0) == 0 ? " [validated]"
                         : status.rfind("PARTLY", 0) == 0  ? " [partly validated]"
                                                           : " [not validated]";
      row.details.push_back(status);
    }
    std::string keys;
    for (const ParamSpec& spec : entry.params) {
      keys += (keys.empty() ? "" : ", ") + spec.name + " (" + param_type_text(spec) + ")";
    }
    row.details.push_back("overrides: " + (keys.empty() ? std::string("none") : keys));
    rows.push_back(std::move(row));
  }
  return rows;
}

// The folder `list` reads scenarios from when none is given: the source tree this binary was
// built from (so it works from any working directory), else ./scenarios.
std::string default_scenarios_folder() {
  namespace fs = std::filesystem;
  const fs::path built_from = fs::path(REDLOCK_SOURCE_DIR) / "scenarios";
  std::error_code error;
  if (fs::is_directory(built_from, error)) return built_from.string();
  return "scenarios";
}

// Every *.json of `folder`, by file name, with its description; a file that does not parse is
// listed with the parser's message, since `run` would refuse it too.
std::vector<ListRow> scenario_rows(const std::string& folder) {
  namespace fs = std::filesystem;
  std::vector<fs::path> files;
  std::error_code error;
  for (fs::directory_iterator it(folder, error), end; !error && it != end; it.increment(error)) {
    if (it->path().extension() == ".json") files.push_back(it->path());
  }
  // By name, so that a scenario and its "-control" twin sit together.
  std::sort(files.begin(), files.end(), [](const fs::path& a, const fs::path& b) {
    return a.stem().string() < b.stem().string();
  });
  std::vector<ListRow> rows;
  for (const fs::path& file : files) {
    ListRow row{.name = file.stem().string(), .description = "", .details = {}};
    try {
      const Scenario scenario = parse_scenario_file(file.string());
      row.description = scenario.description.empty() ? "(no description)" : scenario.description;
    } catch (const ScenarioError& e) {
      row.description = "(does not parse: " + e.path() + ": " + e.message() + ")";
    }
    row.details.push_back("file: " + file.filename().string());
    rows.push_back(std::move(row));
  }
  return rows;
}

// The `kind`s of a scenario's `faults[]` (docs/scenario-format.md), one line each.
std::vector<ListRow> scenario_fault_rows() {
  std::vector<ListRow> rows;
  for (const FaultKindDescriptor* kind : fault_kinds())
    rows.push_back({.name = kind->name, .description = kind->help, .details = {}});
  return rows;
}

// The classes `redlock-sim explore` draws faults from.
std::vector<ListRow> fault_class_rows() {
  std::vector<ListRow> rows;
  for (const FaultClass fault_class : all_fault_classes()) {
    rows.push_back({.name = fault_class_name(fault_class),
                    .description = fault_class_description(fault_class),
                    .details = {}});
  }
  return rows;
}

std::vector<ListSection> sections(const std::string& scenarios_folder) {
  std::vector<ListSection> list;
  list.push_back({"families", "Lock families (algorithms, written once against the port)",
                  lock_rows(LockKind::family)});
  list.push_back({"profiles",
                  "Library profiles (a family plus one library's defaults, quirks and bugs)",
                  lock_rows(LockKind::profile)});
  list.push_back(
      {"zoo", "Zoo (broken on purpose, each beside its correct twin)", lock_rows(LockKind::zoo)});
  list.push_back(
      {"scenarios", "Scenarios (redlock-sim run FILE)", scenario_rows(scenarios_folder)});
  list.push_back({"faults", "Fault kinds (a scenario's faults[].kind)", scenario_fault_rows()});
  list.push_back(
      {"fault-classes", "Fault classes (what redlock-sim explore draws from)", fault_class_rows()});
  return list;
}

// A cell of a Markdown table: pipes escaped.
std::string cell(const std::string& text) {
  std::string out;
  for (char c : text)
    out += c == '|' ? std::string("\\|") : std::string(1, c);
  return out;
}

std::string range_text(const ParamSpec& spec) {
  if (spec.type == ParamType::integer || spec.type == ParamType::count) {
    return "[" + std::to_string(spec.min) + ", " + std::to_string(spec.max) + "]";
  }
  return "";
}

// docs/lock-parameters.md: every lock's parameter table as the registry declares it (a golden
// test keeps the file equal to this output).
void print_parameter_tables() {
  std::printf(
      "# Lock parameters\n\n"
      "Generated by `redlock-sim list --params` from each lock's parameter table (its one\n"
      "declaration, in the lock's own file under lock_impls/); the golden test "
      "`golden.lock_parameters`\nkeeps this file equal to that output. A scenario sets them in "
      "a client's `params`, typed as\nshown; a default of `-` is derived as the help says.\n");
  for (const LockEntry& entry : lock_entries()) {
    std::printf("\n## %s (%s)\n\n%s. Models: %s.\n\n", entry.name.c_str(),
                lock_kind_name(entry.kind), cell(entry.description).c_str(),
                cell(entry.models).c_str());
    if (entry.params.empty()) {
      std::printf("No parameters.\n");
      continue;
    }
    std::printf("| name | type | unit | default | range | help |\n|---|---|---|---|---|---|\n");
    for (const ParamSpec& spec : entry.params) {
      std::printf("| `%s` | %s | %s | %s | %s | %s |\n", spec.name.c_str(),
                  cell(param_type_text(spec)).c_str(), spec.unit.c_str(),
                  spec.default_value ? cell(param_value_text(*spec.default_value)).c_str() : "-",
                  range_text(spec).c_str(), cell(spec.help).c_str());
    }
  }
}

// docs/fault-kinds.md: every fault kind's row as its descriptor declares it (a golden test keeps
// the file equal to this output), so a new kind's file brings its documentation with it.
void print_fault_table() {
  std::printf(
      "# Fault kinds\n\n"
      "Generated by `redlock-sim list --faults` from each fault kind's descriptor (its one file\n"
      "under sim/faults/kinds/); the golden test `golden.fault_kinds` keeps this file equal to\n"
      "that output. Every fault of a scenario's `faults[]` has `kind` and `at_ms` (true time,\n"
      ">= 0; a kind marked \"may begin before the run\" may be negative: see the scenario\n"
      "format's `faults[]`) and the fields below; defaults are in parentheses. \"Explored as\"\n"
      "names the classes `redlock-sim explore` draws the kind for (on a node, on a client, or\n"
      "any); \"real mode\" says whether `redlock-sim real` stages it.\n\n"
      "| kind | fields | effect | explored as | real mode |\n|---|---|---|---|---|\n");
  for (const FaultKindDescriptor* kind : fault_kinds()) {
    std::string classes;
    for (const char* name : {kind->node_class, kind->client_class, kind->any_target_class}) {
      if (name != nullptr) classes += (classes.empty() ? "" : ", ") + std::string("`") + name + "`";
    }
    std::string effect = kind->doc_effect != nullptr ? kind->doc_effect : kind->help;
    if (kind->may_start_before_run) effect += "; may begin before the run";
    const std::string real = kind->real_mode_refusal != nullptr
                                 ? std::string("refused: ") + kind->real_mode_refusal
                             : kind->stage != nullptr ? std::string("staged")
                                                      : std::string("refused");
    std::printf("| `%s` | %s | %s | %s | %s |\n", kind->name,
                kind->doc_fields != nullptr ? cell(kind->doc_fields).c_str() : "-",
                cell(effect).c_str(), classes.empty() ? "-" : classes.c_str(), cell(real).c_str());
  }
}

void print_section(const ListSection& section, bool verbose) {
  std::printf("%s:\n", section.title.c_str());
  for (const ListRow& row : section.rows) {
    std::printf("  %-30s %s\n", row.name.c_str(), row.description.c_str());
    if (!verbose) continue;
    for (const std::string& detail : row.details)
      std::printf("  %-30s   %s\n", "", detail.c_str());
  }
  std::printf("\n");
}

int run_list(const std::vector<std::string>& arguments) {
  namespace po = boost::program_options;
  po::options_description options("redlock-sim list [options]");
  bool verbose = false;
  bool parameter_tables = false;
  bool fault_table = false;
  std::string only;
  std::string scenarios_folder = default_scenarios_folder();
  options.add_options()("help,h", "show this help")(
      "verbose,v", po::bool_switch(&verbose), "also show what each entry models and its overrides")(
      "params", po::bool_switch(&parameter_tables),
      "print every lock's parameter table (name, type, unit, default, range, help) as Markdown")(
      "faults", po::bool_switch(&fault_table),
      "print every fault kind's fields, effect, exploration classes and real-mode support as "
      "Markdown")("section", po::value<std::string>(&only),
                  "print one section: families, profiles, zoo, scenarios, faults or fault-classes")(
      "scenarios", po::value<std::string>(&scenarios_folder),
      "the folder of scenario files (default: scenarios/ of the source tree, else ./scenarios)");
  po::variables_map values;
  try {
    parse_flags(arguments, options, values);
  } catch (const po::error& error) {
    return bad_input(std::string("list: ") + error.what());
  }
  if (values.count("help")) {
    std::printf(
        "Lists the lock families, library profiles and zoo variants a scenario can name,\n"
        "the scenario files, the fault kinds and the exploration's fault classes, with\n"
        "one-line descriptions.\n");
    std::cout << options << "\n";
    return exit_ok;
  }
  if (parameter_tables) {
    print_parameter_tables();
    return exit_ok;
  }
  if (fault_table) {
    print_fault_table();
    return exit_ok;
  }
  std::error_code folder_error;
  if (values.count("scenarios") && !std::filesystem::is_directory(scenarios_folder, folder_error)) {
    return bad_input("list: --scenarios: no folder '" + scenarios_folder + "'");
  }
  const std::vector<ListSection> all = sections(scenarios_folder);
  bool printed = false;
  for (const ListSection& section : all) {
    if (!only.empty() && section.key != only) continue;
    print_section(section, verbose);
    printed = true;
  }
  if (!printed) return bad_input("list: unknown section '" + only + "'");
  return exit_ok;
}

const Registrar registrar(
    {"list", "lock families, library profiles, zoo variants, scenarios and fault kinds",
     &run_list});

}  // namespace
}  // namespace redlock_sim::cli
