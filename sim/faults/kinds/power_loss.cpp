// power_loss: only what was fsynced survives; optional delayed restart.
#include "sim/faults/process_stop.hpp"

namespace redlock_sim {

namespace {

std::optional<std::string> story(const FaultSpec&) {
  return "power_loss";
}

std::string sentence(const std::string& name, const std::string&) {
  return name + " lost power";
}

}  // namespace

// Declared extern first so the constant has external linkage: the registry that the build
// generates from this folder names it as <file name>_fault.
extern const FaultKindDescriptor power_loss_fault;
const FaultKindDescriptor power_loss_fault{
    .name = "power_loss",
    .help = "only fsynced data survives; optional delayed restart",
    .read = process_stop::read,
    .write = process_stop::write,
    .apply = process_stop::apply<StopKind::power_loss>,
    .story = story,
    .sentence = sentence,
    .shorter = fault_fields::shorter_duration,
    .node_class = "node-power-loss",
    .drawing = process_stop::drawing,
    .draw = process_stop::draw,
    .stage = process_stop::stage<StopKind::power_loss>,
    .doc_fields = "`target`, `restart_after_ms`, `restart_clock`",
    .doc_effect = "only fsynced data survives",
};

}  // namespace redlock_sim
