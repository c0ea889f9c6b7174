// The scenario format's parser and validator: JSON text -> Scenario, strictly.
//
// Any unknown field, wrong type, dangling reference or impossible value stops parsing with one
// ScenarioError naming the file, the JSON path and what was expected (docs/scenario-format.md).
// Malformed input (truncated, binary, deeply nested, huge numbers) is an error, never a crash.
#pragma once

#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

#include "sim/scenario/scenario.hpp"

namespace redlock_sim {

class ScenarioError : public std::runtime_error {
 public:
  ScenarioError(std::string file, std::string path, std::string message);
  const std::string& file() const { return file_; }
  const std::string& path() const { return path_; }
  const std::string& message() const { return message_; }

 private:
  std::string file_;
  std::string path_;
  std::string message_;
};

// Checks a client's profile name and parameter overrides; returns an error message, or nothing.
// (The lock registry lives in lock_impls/, which the parser does not depend on.)
using ProfileCheck = std::function<std::optional<std::string>(const ClientSpec&)>;

inline constexpr std::size_t scenario_file_bytes_max = 4 * 1024 * 1024;
inline constexpr int scenario_depth_max = 32;

Scenario parse_scenario_text(std::string_view text, const std::string& source,
                             const ProfileCheck& check_profile = {});
Scenario parse_scenario_file(const std::string& path, const ProfileCheck& check_profile = {});
// One `faults[i]` object, e.g. {"kind": "clock_step", "at_ms": 5, "target": "N1", "delta_ms": 3},
// read by its kind as the parser reads it in a file (process names are not checked: there is no
// scenario). Lets tests and tools build a fault whose fields are its kind's own struct.
FaultSpec parse_fault_text(std::string_view text, const std::string& source);

}  // namespace redlock_sim
