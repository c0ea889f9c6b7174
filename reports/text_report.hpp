// Reports for people, in the terminal: the verdicts and the story of a violation in a few lines,
// and a text timeline of the whole run in true time with each process's own clocks beside it.
#pragma once

#include <string>

#include "sim/runner/runner.hpp"

namespace redlock_sim {

// `command` is how to reproduce the run, printed at the end.
std::string summary_text(const ScenarioResult& result, const std::string& description,
                         const std::string& command);
std::string timeline_text(const ScenarioResult& result);

}  // namespace redlock_sim
