// The machine-readable result of one run (docs/scenario-format.md, "The result"): exactly
// `scenario`, `seed`, `verdicts`, `violations`, `expectations_met`, `trace_digest` and `stats`.
// Canonical: keys sorted, times as integer milliseconds, so two runs of the same scenario and
// seed diff to nothing.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "sim/runner/runner.hpp"

namespace redlock_sim {

nlohmann::json result_json(const ScenarioResult& result);
std::string result_json_text(const ScenarioResult& result);  // two-space indent, final newline

}  // namespace redlock_sim
