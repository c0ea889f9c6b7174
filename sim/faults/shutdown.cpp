// shutdown: a clean stop (SHUTDOWN, SIGTERM): persistence is flushed first; optional delayed
// restart.
#include "sim/faults/process_stop.hpp"

namespace redlock_sim {

namespace {

std::optional<std::string> story(const FaultSpec&) {
  return "shutdown";
}

std::string sentence(const std::string& name, const std::string&) {
  return name + " was shut down";
}

}  // namespace

// Declared extern first so the constant has external linkage (the registry names it).
extern const FaultKindDescriptor shutdown_fault;
const FaultKindDescriptor shutdown_fault{
    .kind = FaultKind::shutdown,
    .name = "shutdown",
    .help = "clean shutdown: persistence flushed; optional delayed restart",
    .read = process_stop::read,
    .write = process_stop::write,
    .apply = process_stop::apply,
    .story = story,
    .sentence = sentence,
    .shorter = fault_fields::shorter_duration,
    .node_class = nullptr,
    .client_class = nullptr,
    .any_target_class = nullptr,
    .real_mode_refusal = nullptr,
};

}  // namespace redlock_sim
