// Sharded sweeps on the command line: `--shard K/N` writes a partial result to the shard's --out
// folder (shard.json), and `redlock-sim merge DIR...` checks the shards belong together and hands
// them, in shard order, to the merge function of the command that wrote them, which finishes the
// run exactly as the unsharded run would (same files, same bytes). A command that shards
// (explore, matrix; a grid sweep the same way) registers its merge function here.
#pragma once

#include <boost/program_options.hpp>
#include <initializer_list>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "sim/explore/shard.hpp"

namespace redlock_sim::cli {

inline constexpr const char* shard_file_name = "shard.json";

// What a command's run depends on: every option's value (defaults included), as text, except
// the given ones (where the shard writes, how many threads, progress lines). Two shards belong to
// the same run iff these are equal.
nlohmann::json shard_settings(const boost::program_options::variables_map& values,
                              std::initializer_list<const char*> excluded);

// 16 hex digits of FNV-1a over a file's bytes (a shard's settings record the base scenario's, so
// a file edited between the shards and the merge is caught); nothing when unreadable.
std::optional<std::string> file_digest(const std::string& path);

// Writes DIR/shard.json; false when it could not.
bool write_shard_file(const std::string& dir, const std::string& command,
                      const std::vector<std::string>& arguments, const nlohmann::json& settings,
                      const Shard& shard, const nlohmann::json& result);

// What `merge` hands a command: the shards in shard order, known to be one run's.
struct MergeRequest {
  std::string command;
  std::vector<std::string> arguments;  // as shard 0 was given them
  nlohmann::json settings;
  std::vector<nlohmann::json> results;  // index K: shard K's
  std::vector<std::string> sources;     // index K: the folder shard K was read from
  std::string out_dir;                  // merge's --out (empty: none)
  unsigned jobs = 1;
  bool quiet = false;
};

// Finishes a sharded run from its shards; returns the exit code the unsharded run would have.
using MergeFunction = int (*)(const MergeRequest& request);

struct MergeRegistrar {
  MergeRegistrar(const char* command, MergeFunction merge);
};

// The merge function of `command`, or nothing.
MergeFunction find_merge_function(const std::string& command);

// The first key whose value differs between two settings objects ("" when they are equal), and
// the two values as text.
std::string first_difference(const nlohmann::json& a, const nlohmann::json& b, std::string& value_a,
                             std::string& value_b);

}  // namespace redlock_sim::cli
