// Two runs on one page (fenced vs unfenced, before vs after a change): their verdicts side by
// side and their HTML reports one above the other on one true-time axis; zooming either moves
// both. Self-contained (the two reports travel inside it), same runs, same bytes.
#pragma once

#include <string>

#include "sim/runner/runner.hpp"

namespace redlock_sim {

struct CompareSide {
  const ScenarioResult* result = nullptr;
  std::string label;  // what the page calls this run (its file)
};

// The terminal's comparison: one row per checker, one column per run.
std::string compare_text(const CompareSide& a, const CompareSide& b);
std::string compare_html(const CompareSide& a, const CompareSide& b,
                         const std::string& program = "redlock-sim");

}  // namespace redlock_sim
