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

// Declared extern first so the constant has external linkage (the registry names it).
extern const FaultKindDescriptor power_loss_fault;
const FaultKindDescriptor power_loss_fault{
    .kind = FaultKind::power_loss,
    .name = "power_loss",
    .help = "only fsynced data survives; optional delayed restart",
    .read = process_stop::read,
    .write = process_stop::write,
    .apply = process_stop::apply,
    .story = story,
    .sentence = sentence,
    .shorter = fault_fields::shorter_duration,
    .node_class = "node-power-loss",
    .client_class = nullptr,
    .any_target_class = nullptr,
    .real_mode_refusal = nullptr,
};

}  // namespace redlock_sim
