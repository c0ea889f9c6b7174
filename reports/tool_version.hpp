// Which redlock-sim made an output: its version (CMake's project version) and the commit it was
// built from (`git describe --always --dirty`; "unknown" outside a git checkout). Every JSON and
// HTML output carries both, so a result can be traced to the code that produced it.
#pragma once

#include <nlohmann/json.hpp>

namespace redlock_sim {

const char* tool_version();
const char* tool_commit();

// {"name": "redlock-sim", "version": ..., "commit": ...}: the "tool" field of JSON outputs.
inline nlohmann::json tool_json() {
  return {{"name", "redlock-sim"}, {"version", tool_version()}, {"commit", tool_commit()}};
}

}  // namespace redlock_sim
