// clock_step: a process's wall clock jumps by delta_ms (NTP step, an administrator); its
// monotonic clock is unaffected.
#include "sim/faults/fault_kind.hpp"

namespace redlock_sim {

namespace {

void read(FaultFieldReader& fields, FaultSpec& fault) {
  fault.target = fields.string("target");
  fault.delta_ms = fields.integer("delta_ms", -fault_time_ms_max, fault_time_ms_max);
}

void write(const FaultSpec& fault, FaultFieldWriter& fields) {
  fields.string("target", fault.target);
  fields.integer("delta_ms", fault.delta_ms);
}

void apply(FaultWorld& world, const std::vector<FaultSpec>& faults, std::size_t index) {
  fault_fields::change_target_at(
      world, faults[index],
      [](FaultWorld& w, ProcessId target, const FaultSpec& fault) {
        w.simulator().step_wall_clock(target, Duration::from_ms(fault.delta_ms));
      },
      true);
}

std::optional<std::string> story(const FaultSpec& fault) {
  return "wall clock steps " + std::string(fault.delta_ms >= 0 ? "+" : "") +
         std::to_string(fault.delta_ms) + " ms";
}

}  // namespace

// Declared extern first so the constant has external linkage (the registry names it).
extern const FaultKindDescriptor clock_step_fault;
const FaultKindDescriptor clock_step_fault{
    .kind = FaultKind::clock_step,
    .name = "clock_step",
    .help = "a process's wall clock jumps by delta_ms; monotonic unaffected",
    .read = read,
    .write = write,
    .apply = apply,
    .story = story,
    .sentence = fault_fields::possessive,
    .shorter = fault_fields::shorter_delta,
    .node_class = "node-clock-step",
    .client_class = "client-clock-step",
    .any_target_class = nullptr,
    .real_mode_refusal = nullptr,
};

}  // namespace redlock_sim
