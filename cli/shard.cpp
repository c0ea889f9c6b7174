#include "cli/shard.hpp"

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <set>

#include "cli/options.hpp"

namespace redlock_sim::cli {

namespace {

std::map<std::string, MergeFunction>& merge_functions() {
  static std::map<std::string, MergeFunction> functions;
  return functions;
}

// One option's value as JSON: the types the commands declare, or true for a bare switch.
template <typename T>
bool put_as(const boost::any& value, nlohmann::json& out) {
  if (const T* typed = boost::any_cast<T>(&value)) {
    out = *typed;
    return true;
  }
  return false;
}

nlohmann::json value_json(const boost::any& value) {
  nlohmann::json out = true;
  if (value.empty()) return out;
  put_as<std::string>(value, out) || put_as<uint64_t>(value, out) || put_as<uint32_t>(value, out) ||
      put_as<int64_t>(value, out) || put_as<int32_t>(value, out) || put_as<double>(value, out) ||
      put_as<bool>(value, out) || put_as<std::vector<std::string>>(value, out);
  return out;
}

}  // namespace

nlohmann::json shard_settings(const boost::program_options::variables_map& values,
                              std::initializer_list<const char*> excluded) {
  const std::set<std::string> skip(excluded.begin(), excluded.end());
  nlohmann::json settings = nlohmann::json::object();
  for (const auto& [name, value] : values) {
    if (skip.count(name)) continue;
    settings[name] = value_json(value.value());
  }
  return settings;
}

std::optional<std::string> file_digest(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  uint64_t hash = 14695981039346656037ull;
  for (std::istreambuf_iterator<char> it(in), end; it != end; ++it) {
    hash ^= static_cast<unsigned char>(*it);
    hash *= 1099511628211ull;
  }
  char text[17];
  std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(hash));
  return std::string(text);
}

bool write_shard_file(const std::string& dir, const std::string& command,
                      const std::vector<std::string>& arguments, const nlohmann::json& settings,
                      const Shard& shard, const nlohmann::json& result) {
  const nlohmann::json file = {{"format", "redlock-sim shard"},
                               {"version", 1},
                               {"command", command},
                               {"arguments", arguments},
                               {"settings", settings},
                               {"shard", {{"index", shard.index}, {"count", shard.count}}},
                               {"result", result}};
  // Written aside and renamed, so a shard killed while writing leaves no shard.json at all.
  const std::filesystem::path path = std::filesystem::path(dir) / shard_file_name;
  const std::filesystem::path partial = path.string() + ".partial";
  if (!write_file(partial, file.dump(1) + "\n")) return false;
  std::error_code error;
  std::filesystem::rename(partial, path, error);
  return !error;
}

MergeRegistrar::MergeRegistrar(const char* command, MergeFunction merge) {
  merge_functions()[command] = merge;
}

MergeFunction find_merge_function(const std::string& command) {
  const auto found = merge_functions().find(command);
  return found == merge_functions().end() ? nullptr : found->second;
}

std::string first_difference(const nlohmann::json& a, const nlohmann::json& b, std::string& value_a,
                             std::string& value_b) {
  std::set<std::string> keys;
  for (const auto& [key, value] : a.items())
    keys.insert(key);
  for (const auto& [key, value] : b.items())
    keys.insert(key);
  for (const std::string& key : keys) {
    const nlohmann::json left = a.contains(key) ? a[key] : nlohmann::json("(not given)");
    const nlohmann::json right = b.contains(key) ? b[key] : nlohmann::json("(not given)");
    if (left == right) continue;
    value_a = left.is_string() ? left.get<std::string>() : left.dump();
    value_b = right.is_string() ? right.get<std::string>() : right.dump();
    return key;
  }
  return "";
}

}  // namespace redlock_sim::cli
