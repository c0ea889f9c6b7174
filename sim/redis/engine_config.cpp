// CONFIG GET/SET for the parameters the model uses. Texts follow Redis 7.0's config.c.
#include <algorithm>
#include <limits>

#include "sim/redis/engine_internal.hpp"

namespace redlock_sim {

using namespace redis_text;
using namespace engine_internal;

namespace {

enum class ParameterKind : uint8_t { integer, boolean, enumeration, text };

struct Parameter {
  const char* name;
  ParameterKind kind;
  int64_t min;
  int64_t max;
  const char* choices;  // enumeration: comma-separated, as Redis lists them
};

constexpr int64_t int_max = std::numeric_limits<int32_t>::max();

// Sorted by name: the order of pattern matches in CONFIG GET.
const Parameter parameters[] = {
    {"active-expire-effort", ParameterKind::integer, 1, 10, nullptr},
    {"appendfsync", ParameterKind::enumeration, 0, 0, "everysec, always, no"},
    {"appendonly", ParameterKind::boolean, 0, 0, nullptr},
    {"busy-reply-threshold", ParameterKind::integer, 0, std::numeric_limits<int64_t>::max(),
     nullptr},
    {"hz", ParameterKind::integer, 0, int_max, nullptr},
    {"lazyfree-lazy-expire", ParameterKind::boolean, 0, 0, nullptr},
    // 7.0's alias of busy-reply-threshold: its own entry (CONFIG GET * lists both, and CONFIG SET
    // of both in one call is no duplicate: the later one wins).
    {"lua-time-limit", ParameterKind::integer, 0, std::numeric_limits<int64_t>::max(), nullptr},
    {"maxmemory", ParameterKind::integer, 0, std::numeric_limits<int64_t>::max(), nullptr},
    {"maxmemory-policy", ParameterKind::enumeration, 0, 0,
     "volatile-lru, volatile-lfu, volatile-random, volatile-ttl, allkeys-lru, allkeys-lfu, "
     "allkeys-random, noeviction"},
    {"min-replicas-max-lag", ParameterKind::integer, 0, int_max, nullptr},
    {"min-replicas-to-write", ParameterKind::integer, 0, int_max, nullptr},
    {"save", ParameterKind::text, 0, 0, nullptr},
};

const Parameter* find_parameter(std::string_view name) {
  for (const Parameter& parameter : parameters) {
    if (equals_ignore_case(parameter.name, name)) return &parameter;
  }
  return nullptr;
}

// Redis's stringmatch for '*' and '?', case-insensitive (enough for parameter names). Greedy
// with one backtrack point (the last '*'): at most pattern x text steps, where the recursive
// form took exponential time on many '*' (a fuzzer found `config get` with 27 of them hanging).
bool glob_match(std::string_view pattern, std::string_view text) {
  std::size_t p = 0, t = 0;
  std::size_t star = std::string_view::npos, star_text = 0;
  while (t < text.size()) {
    if (p < pattern.size() && pattern[p] == '*') {
      star = p++;
      star_text = t;
    } else if (p < pattern.size() &&
               (pattern[p] == '?' || equals_ignore_case(pattern.substr(p, 1), text.substr(t, 1)))) {
      ++p;
      ++t;
    } else if (star != std::string_view::npos) {
      p = star + 1;
      t = ++star_text;
    } else {
      return false;
    }
  }
  while (p < pattern.size() && pattern[p] == '*')
    ++p;
  return p == pattern.size();
}

std::string yes_no(bool value) {
  return value ? "yes" : "no";
}

std::string read_parameter(const EngineConfig& config, std::string_view name) {
  if (name == "active-expire-effort") return format_int64(config.active_expire_effort);
  if (name == "appendfsync") return config.appendfsync;
  if (name == "appendonly") return yes_no(config.appendonly);
  if (name == "busy-reply-threshold" || name == "lua-time-limit") {
    return format_int64(config.busy_reply_threshold_ms);
  }
  if (name == "hz") return format_int64(config.hz);
  if (name == "lazyfree-lazy-expire") return yes_no(config.lazyfree_lazy_expire);
  if (name == "maxmemory") return format_int64(config.maxmemory);
  if (name == "maxmemory-policy") return config.maxmemory_policy;
  if (name == "min-replicas-max-lag") return format_int64(config.min_replicas_max_lag);
  if (name == "min-replicas-to-write") return format_int64(config.min_replicas_to_write);
  return config.save;
}

void write_parameter(EngineConfig& config, std::string_view name, const std::string& value) {
  int64_t number = 0;
  parse_int64(value, number);
  if (name == "active-expire-effort") config.active_expire_effort = number;
  if (name == "appendfsync") config.appendfsync = to_lower(value);
  if (name == "appendonly") config.appendonly = equals_ignore_case(value, "yes");
  if (name == "busy-reply-threshold" || name == "lua-time-limit") {
    config.busy_reply_threshold_ms = number;
  }
  // Redis clamps the effective hz to [1, 500] and reports the clamped value.
  if (name == "hz") config.hz = std::clamp<int64_t>(number, 1, 500);
  if (name == "lazyfree-lazy-expire")
    config.lazyfree_lazy_expire = equals_ignore_case(value, "yes");
  if (name == "maxmemory") config.maxmemory = number;
  if (name == "maxmemory-policy") config.maxmemory_policy = to_lower(value);
  if (name == "min-replicas-max-lag") config.min_replicas_max_lag = number;
  if (name == "min-replicas-to-write") config.min_replicas_to_write = number;
  if (name == "save") config.save = value;
}

// The reason a value is refused, or empty when it is acceptable.
std::string check_value(const Parameter& parameter, const std::string& value) {
  switch (parameter.kind) {
    case ParameterKind::integer: {
      int64_t number = 0;
      if (!parse_int64(value, number)) return "argument couldn't be parsed into an integer";
      if (number < parameter.min || number > parameter.max) {
        return "argument must be between " + format_int64(parameter.min) + " and " +
               format_int64(parameter.max) + " inclusive";
      }
      return {};
    }
    case ParameterKind::boolean:
      if (equals_ignore_case(value, "yes") || equals_ignore_case(value, "no")) return {};
      return "argument must be 'yes' or 'no'";
    case ParameterKind::enumeration: {
      std::string_view choices = parameter.choices;
      while (!choices.empty()) {
        const std::size_t comma = choices.find(", ");
        if (equals_ignore_case(choices.substr(0, comma), value)) return {};
        choices = comma == std::string_view::npos ? std::string_view() : choices.substr(comma + 2);
      }
      return std::string("argument(s) must be one of the following: ") + parameter.choices;
    }
    case ParameterKind::text:
      return {};
  }
  return {};
}

}  // namespace

Reply RedisEngine::config_get(Call& call) {
  ReplyList items;
  std::vector<std::string> seen;
  const auto add = [&](const std::string& shown, const Parameter& parameter) {
    if (std::find(seen.begin(), seen.end(), parameter.name) != seen.end()) return;
    seen.emplace_back(parameter.name);
    items.push_back(Reply::bulk(shown));
    items.push_back(Reply::bulk(read_parameter(config_, parameter.name)));
  };
  for (std::size_t j = 2; j < call.argv.size(); ++j) {
    const std::string& pattern = call.argv[j];
    if (pattern.find_first_of("[*?") == std::string::npos) {
      // An exact name is echoed as the client spelled it.
      if (const Parameter* parameter = find_parameter(pattern)) add(pattern, *parameter);
      continue;
    }
    for (const Parameter& parameter : parameters) {
      if (glob_match(pattern, parameter.name)) add(parameter.name, parameter);
    }
  }
  return Reply::array(std::move(items));
}

Reply RedisEngine::config_set(Call& call) {
  std::vector<const Parameter*> chosen;
  for (std::size_t j = 2; j < call.argv.size(); j += 2) {
    const Parameter* parameter = find_parameter(call.argv[j]);
    if (parameter == nullptr) {
      return error_reply("ERR Unknown option or number of arguments for CONFIG SET - '" +
                         call.argv[j] + "'");
    }
    if (std::find(chosen.begin(), chosen.end(), parameter) != chosen.end()) {
      return error_reply("ERR CONFIG SET failed (possibly related to argument '" + call.argv[j] +
                         "') - duplicate parameter");
    }
    chosen.push_back(parameter);
  }
  for (std::size_t i = 0; i < chosen.size(); ++i) {
    const std::string reason = check_value(*chosen[i], call.argv[3 + 2 * i]);
    if (!reason.empty()) {
      return error_reply("ERR CONFIG SET failed (possibly related to argument '" +
                         call.argv[2 + 2 * i] + "') - " + reason);
    }
  }
  for (std::size_t i = 0; i < chosen.size(); ++i) {
    write_parameter(config_, chosen[i]->name, call.argv[3 + 2 * i]);
  }
  return Reply::ok();
}

}  // namespace redlock_sim
