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

// Declared extern first so the constant has external linkage: the registry that the build
// generates from this folder names it as <file name>_fault.
extern const FaultKindDescriptor shutdown_fault;
const FaultKindDescriptor shutdown_fault{
    .name = "shutdown",
    .help = "clean shutdown: persistence flushed; optional delayed restart",
    .read = process_stop::read,
    .write = process_stop::write,
    .apply = process_stop::apply<StopKind::shutdown>,
    .story = story,
    .sentence = sentence,
    .shorter = fault_fields::shorter_duration,
    .drawing = process_stop::drawing,
    .stage = process_stop::stage<StopKind::shutdown>,
    .doc_fields = "`target`, `restart_after_ms`, `restart_clock`",
    .doc_effect = "clean shutdown",
};

}  // namespace redlock_sim
