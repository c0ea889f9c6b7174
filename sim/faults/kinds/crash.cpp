// crash: kill -9. The OS keeps what was written (a node's AOF and RDB as last written, fsynced
// or not); optional delayed restart.
#include "sim/faults/process_stop.hpp"

namespace redlock_sim {

namespace {

std::optional<std::string> story(const FaultSpec&) {
  return "crash (kill -9)";
}

std::string sentence(const std::string& name, const std::string&) {
  return name + " crashed (kill -9)";
}

}  // namespace

// Declared extern first so the constant has external linkage: the registry that the build
// generates from this folder names it as <file name>_fault.
extern const FaultKindDescriptor crash_fault;
const FaultKindDescriptor crash_fault{
    .name = "crash",
    .help = "kill -9: the OS keeps what was written; optional delayed restart",
    .read = process_stop::read,
    .write = process_stop::write,
    .apply = process_stop::apply<StopKind::kill>,
    .story = story,
    .sentence = sentence,
    .shorter = fault_fields::shorter_duration,
    .node_class = "node-crash",
    .client_class = "client-crash",
    .drawing = process_stop::drawing,
    .draw = process_stop::draw,
    .stage = process_stop::stage<StopKind::kill>,
    .doc_fields = "`target`, `restart_after_ms`, `restart_clock`",
    .doc_effect = "kill -9; the OS keeps what was written",
};

}  // namespace redlock_sim
