#include "sim/scenario/scenario.hpp"

namespace redlock_sim {

const char* step_kind_name(StepKind kind) {
  switch (kind) {
    case StepKind::acquire:
      return "acquire";
    case StepKind::release:
      return "release";
    case StepKind::extend:
      return "extend";
    case StepKind::read:
      return "read";
    case StepKind::write:
      return "write";
    case StepKind::increment:
      return "increment";
    case StepKind::sleep:
      return "sleep";
    case StepKind::stop_if_expired:
      return "stop_if_expired";
    case StepKind::command:
      return "command";
  }
  return "unknown";
}

const std::vector<std::string>& probe_names() {
  // The names of the runner's probe_definitions() (sim/runner/run_event.hpp), which the scenario
  // model sits below; RunEvent.ExpectableProbesAreTheDefinedOnes keeps the two lists equal.
  static const std::vector<std::string> names = {"clock_rate", "clock_slew",          "clock_step",
                                                 "failover",   "key_lost_on_restart", "pause"};
  return names;
}

namespace {
// "N4, N5": process names for a story line, from `first` on.
std::string joined_names(const std::vector<std::string>& names, std::size_t first) {
  std::string out;
  for (std::size_t i = first; i < names.size(); ++i)
    out += (out.empty() ? "" : ", ") + names[i];
  return out;
}
}  // namespace

std::string partition_story_text(const FaultSpec& fault) {
  std::string text = std::string(fault.one_way ? "can no longer send to " : "is cut off from ") +
                     joined_names(fault.side_b, 0);
  if (fault.side_a.size() > 1) text = "(with " + joined_names(fault.side_a, 1) + ") " + text;
  if (fault.at_ms < 0) text += " since " + std::to_string(fault.at_ms) + " ms";
  if (fault.until_ms) text += " until " + std::to_string(*fault.until_ms) + " ms";
  return text;
}

std::string hold_story_text(const FaultSpec& fault) {
  return "has its next " + (fault.command.empty() ? std::string("message") : fault.command) +
         (fault.to.empty() ? "" : " to " + fault.to) + " held in the network until " +
         std::to_string(fault.until_ms.value_or(0)) + " ms";
}

}  // namespace redlock_sim
