// A lock parameter's value as the scenario file wrote it: an integer, a boolean or a string (the
// name of a choice). Values stay typed from the JSON onward; the lock's parameter table
// (lock_impls/params.hpp) says which type each name takes. It lives beside the port because the
// simulator's scenario (sim/runner/scenario.hpp) carries these values to the lock unread.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <variant>

namespace redlock_sim {

using ParamValue = std::variant<int64_t, bool, std::string>;
using LockParams = std::map<std::string, ParamValue>;

// The value as JSON would spell it: 3000, true, "wall".
inline std::string param_value_text(const ParamValue& value) {
  if (const auto* i = std::get_if<int64_t>(&value)) return std::to_string(*i);
  if (const auto* b = std::get_if<bool>(&value)) return *b ? "true" : "false";
  return "\"" + std::get<std::string>(value) + "\"";
}

}  // namespace redlock_sim
