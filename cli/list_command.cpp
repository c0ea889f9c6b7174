// `redlock-sim list`: what can be named in a scenario, section by section, one line each.
//
// Each section is a title and rows of (name, description, details); new sections (scenarios,
// fault kinds) are added to `sections()` and print the same way.
#include <boost/program_options.hpp>
#include <cstdio>
#include <iostream>
#include <string>
#include <vector>

#include "cli/command.hpp"
#include "lock_impls/registry.hpp"

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
    std::string keys;
    for (const LockOverride& o : entry.overrides) {
      keys += (keys.empty() ? "" : ", ") + o.key + " (" + o.type + ")";
    }
    row.details.push_back("overrides: " + (keys.empty() ? std::string("none") : keys));
    rows.push_back(std::move(row));
  }
  return rows;
}

std::vector<ListSection> sections() {
  std::vector<ListSection> list;
  list.push_back({"families", "Lock families (algorithms, written once against the port)",
                  lock_rows(LockKind::family)});
  list.push_back({"profiles",
                  "Library profiles (a family plus one library's defaults, quirks and bugs)",
                  lock_rows(LockKind::profile)});
  list.push_back(
      {"zoo", "Zoo (broken on purpose, each beside its correct twin)", lock_rows(LockKind::zoo)});
  return list;
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
  std::string only;
  options.add_options()("help,h", "show this help")(
      "verbose,v", po::bool_switch(&verbose), "also show what each entry models and its overrides")(
      "section", po::value<std::string>(&only), "print one section: families, profiles or zoo");
  po::variables_map values;
  try {
    po::store(po::command_line_parser(arguments).options(options).run(), values);
    po::notify(values);
  } catch (const po::error& error) {
    return bad_input(std::string("list: ") + error.what());
  }
  if (values.count("help")) {
    std::printf(
        "Lists the lock families, library profiles and zoo variants a scenario can name,\n"
        "with one-line descriptions.\n");
    std::cout << options << "\n";
    return exit_ok;
  }
  const std::vector<ListSection> all = sections();
  bool printed = false;
  for (const ListSection& section : all) {
    if (!only.empty() && section.key != only) continue;
    print_section(section, verbose);
    printed = true;
  }
  if (!printed) return bad_input("list: unknown section '" + only + "'");
  return exit_ok;
}

const Registrar registrar({"list", "lock families, library profiles and zoo variants", &run_list});

}  // namespace
}  // namespace redlock_sim::cli
