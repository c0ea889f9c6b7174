// The run as data for other tools (`redlock-sim run FILE --trace PATH`): every trace record with
// its kind and process names and its fields decoded, every logged message with its text and
// fate, the story, the holds, key lifetimes, grants, resource operations and violations.
// docs/reports.md documents the format.
#pragma once

#include <iosfwd>
#include <string>

#include "sim/runner/runner.hpp"

namespace redlock_sim {

// One JSON document; arrays hold one element per line so that two exports diff line by line.
// `--trace` streams it to its file with write_trace_json, one element at a time, so the export
// costs no more memory than the result it describes; trace_json_text is the same as a string.
void write_trace_json(std::ostream& out, const ScenarioResult& result);
std::string trace_json_text(const ScenarioResult& result);

}  // namespace redlock_sim
