// A lock's parameters, declared once in a typed table (the ns-3 AddAttribute idea): name, type,
// unit, default, range and help. `list`, the docs table, the scenario parser's check, the
// shrinker and the lock's constructor all read this table; nothing else declares a parameter.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "lock_impls/port/param_value.hpp"
#include "lock_impls/port/time.hpp"

namespace redlock_sim {

enum class ParamType : uint8_t {
  integer,  // int64 in [min, max]
  count,    // a count or index, integer in [min, max] (listed as "uint")
  boolean,
  choice,  // one of `choices`
};

struct ParamSpec {
  std::string name;
  ParamType type = ParamType::integer;
  std::string unit;  // "ms", "ppm", "nodes", ... (empty: none)
  // What the lock uses when the scenario does not say; none when it is derived from another
  // parameter (the help says how, e.g. "ttl/3").
  std::optional<ParamValue> default_value;
  int64_t min = 0;
  int64_t max = 0;
  std::vector<std::string> choices;
  std::string help;
};
using ParamTable = std::vector<ParamSpec>;

// Largest time parameter in ms, bounded like the scenario format's (about 31 years), so that a
// local clock reading plus any of them stays far from int64 nanoseconds' limit.
inline constexpr int64_t param_ms_max = 1'000'000'000'000;

// Table rows, with the conventions every lock shares.
ParamSpec ms_param(std::string name, Duration fallback, std::string help, int64_t min = 0);
ParamSpec integer_param(std::string name, std::string unit, int64_t fallback, int64_t min,
                        int64_t max, std::string help);
ParamSpec count_param(std::string name, std::string unit, std::optional<int64_t> fallback,
                      std::string help);
ParamSpec flag_param(std::string name, bool fallback, std::string help);
ParamSpec choice_param(std::string name, std::vector<std::string> choices, std::size_t fallback,
                       std::string help);
// The same row with no default: derived from another parameter as `help` says.
ParamSpec derived(ParamSpec spec);

const ParamSpec* find_param(const ParamTable& table, std::string_view name);
// "int", "uint", "bool" or "a | b | c", as `list --verbose` shows it.
std::string param_type_text(const ParamSpec& spec);
// The first problem with `params` against `table` (a name it does not declare, a value of the
// wrong type or out of range), or nothing.
std::optional<std::string> check_params(const ParamTable& table, const LockParams& params);

// Typed read access to checked parameters, the table's defaults filling the gaps. Reading a
// name the table does not declare, or as the wrong type, is a programmer error (assertion).
class ParamValues {
 public:
  // `node_count`: how many nodes the client lists (port nodes 0..node_count-1, in the list's
  // order). A lock learns its nodes from there, never from a parameter.
  ParamValues(const ParamTable& table, const LockParams& params, uint32_t node_count)
      : table_(table), params_(params), node_count_(node_count) {}

  uint32_t node_count() const { return node_count_; }

  // Whether the scenario set `name` (false for a name the table does not declare).
  bool given(std::string_view name) const;
  int64_t integer(std::string_view name) const;
  int64_t integer_or(std::string_view name, int64_t fallback) const;  // derived defaults
  uint32_t count(std::string_view name) const { return static_cast<uint32_t>(integer(name)); }
  Duration ms(std::string_view name) const { return Duration::from_ms(integer(name)); }
  // The given value, else `fallback` in whole milliseconds, as a value in the table would be
  // (a watchdog's ttl/3 of a 2 s TTL is 666 ms).
  Duration ms_or(std::string_view name, Duration fallback) const;
  bool flag(std::string_view name) const;
  // The index of the chosen value in the row's choices.
  std::size_t choice(std::string_view name) const;

 private:
  const ParamValue& value(std::string_view name, ParamType type) const;

  const ParamTable& table_;
  const LockParams& params_;
  uint32_t node_count_;
};

}  // namespace redlock_sim
