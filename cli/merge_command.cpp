// `redlock-sim merge DIR...`: combines the partial results of a sharded run (`explore --shard
// K/N --out DIR`, `matrix --shard K/N --out DIR`) into exactly what the unsharded run writes. It
// checks the shards belong together first: one command, one N, the same settings, every K from 0
// to N-1 once; anything else is bad input naming the shard, and nothing is written.
#include <boost/program_options.hpp>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>

#include "cli/command.hpp"
#include "cli/options.hpp"
#include "cli/shard.hpp"

namespace redlock_sim::cli {
namespace {

namespace po = boost::program_options;

struct ShardFile {
  std::string source;  // the folder (or file) named on the command line
  nlohmann::json json;
  Shard shard;
};

// Reads one shard's shard.json (DIR may also name the file itself).
std::optional<int> read_shard(const std::string& source, ShardFile& out) {
  std::error_code error;
  std::filesystem::path path = source;
  if (std::filesystem::is_directory(path, error)) path /= shard_file_name;
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    return bad_input("merge: " + source + ": no " + shard_file_name +
                     " (give the --out folder of each shard)");
  }
  try {
    out.json = nlohmann::json::parse(in);
    if (out.json.value("format", "") != "redlock-sim shard" || out.json.value("version", 0) != 1) {
      return bad_input("merge: " + path.string() + " is not a redlock-sim shard (version 1)");
    }
    const nlohmann::json& shard = out.json.at("shard");
    out.shard = Shard{.index = shard.at("index").get<uint64_t>(),
                      .count = shard.at("count").get<uint64_t>()};
    if (out.shard.count == 0 || out.shard.index >= out.shard.count) {
      return bad_input("merge: " + path.string() + ": shard index out of range");
    }
    out.json.at("command").get<std::string>();
    out.json.at("arguments").get<std::vector<std::string>>();
    if (!out.json.at("settings").is_object()) throw std::runtime_error("settings: not an object");
    out.json.at("result");
  } catch (const std::exception& e) {
    return bad_input("merge: " + path.string() + " is not a readable shard file: " + e.what());
  }
  out.source = source;
  return std::nullopt;
}

// The shards as one run, in shard order; or bad input naming the shard that does not fit.
std::optional<int> check_together(std::vector<ShardFile>& files, MergeRequest& request) {
  const ShardFile& first = files.front();
  const std::string command = first.json["command"];
  const std::string first_name = first.source + " (shard " + shard_text(first.shard) + ")";
  std::map<uint64_t, const ShardFile*> by_index;
  for (const ShardFile& f : files) {
    const std::string name = f.source + " (shard " + shard_text(f.shard) + ")";
    if (f.json["command"] != command) {
      return bad_input("merge: " + name + " is a shard of '" +
                       f.json["command"].get<std::string>() + "', " + first_name + " of '" +
                       command + "'");
    }
    if (f.shard.count != first.shard.count) {
      return bad_input("merge: " + name + " was run with other arguments than " + first_name +
                       ": --shard " + shard_text(f.shard) + " is one of " +
                       std::to_string(f.shard.count) + " shards, not " +
                       std::to_string(first.shard.count));
    }
    std::string here, there;
    const std::string key =
        first_difference(f.json["settings"], first.json["settings"], here, there);
    if (!key.empty()) {
      return bad_input("merge: " + name + " was run with other arguments than " + first_name +
                       ": " + key + " '" + here + "' there, '" + there + "' in " + first.source);
    }
    const auto [at, inserted] = by_index.emplace(f.shard.index, &f);
    if (!inserted) {
      return bad_input("merge: " + at->second->source + " and " + f.source + " are both shard " +
                       shard_text(f.shard));
    }
  }
  std::string missing;
  int listed = 0;
  for (uint64_t k = 0; k < first.shard.count; ++k) {
    if (by_index.count(k)) continue;
    if (listed++ < 10) missing += (missing.empty() ? "" : ", ") + std::to_string(k);
  }
  if (listed > 0) {
    return bad_input("merge: " + std::to_string(listed) + " of " +
                     std::to_string(first.shard.count) + " shards missing: " + missing +
                     (listed > 10 ? ", ..." : "") + " (K of --shard K/" +
                     std::to_string(first.shard.count) + ")");
  }
  request.command = command;
  request.arguments = by_index.at(0)->json["arguments"].get<std::vector<std::string>>();
  request.settings = by_index.at(0)->json["settings"];
  for (const auto& [index, f] : by_index) {
    request.results.push_back(f->json["result"]);
    request.sources.push_back(f->source);
  }
  return std::nullopt;
}

int run_merge(const std::vector<std::string>& arguments) {
  po::options_description options("redlock-sim merge DIR... [options]");
  std::vector<std::string> dirs;
  MergeRequest request;
  options.add_options()("help,h", "show this help")(
      "out", po::value<std::string>(&request.out_dir),
      "write what the unsharded run's --out gets here (findings, counterexamples)")(
      "jobs,j", po::value<unsigned>(&request.jobs)->default_value(1),
      "parallel workers (shrinking)")("quiet,q", "no progress line");
  po::variables_map values;
  if (auto done = parse_with_positionals(
          arguments, options, "merge",
          "Combines the shards of a sharded explore or matrix run (each run with\n"
          "--shard K/N --out DIR, K = 0..N-1) into exactly what the run on one machine\n"
          "writes, whatever N and whatever order they finished in. Shrinking happens here.\n"
          "Exit codes: those of the unsharded command; 2 when a shard is missing, was run\n"
          "with other arguments, or is not a shard.",
          values, "dirs", -1))
    return *done;
  if (values.count("dirs")) dirs = values["dirs"].as<std::vector<std::string>>();
  if (dirs.empty()) return bad_input("merge: give the --out folder of every shard");
  if (request.jobs == 0 || request.jobs > 256)
    return bad_input("merge: --jobs must be in [1, 256]");
  request.quiet = values.count("quiet") != 0;
  std::vector<ShardFile> files(dirs.size());
  for (std::size_t i = 0; i < dirs.size(); ++i) {
    if (auto failed = read_shard(dirs[i], files[i])) return *failed;
  }
  if (auto failed = check_together(files, request)) return *failed;
  const MergeFunction merge = find_merge_function(request.command);
  if (merge == nullptr) {
    return bad_input("merge: " + files.front().source + ": '" + request.command +
                     "' does not merge shards");
  }
  return merge(request);
}

const Registrar registrar({"merge",
                           "combine the shards of a sharded explore or matrix into the "
                           "one-machine result",
                           &run_merge});

}  // namespace
}  // namespace redlock_sim::cli
