#include "sim/faults/fault_kind.hpp"

#include "sim/kernel/assert.hpp"

namespace redlock_sim {

// Each kind's file defines its descriptor.
extern const FaultKindDescriptor clock_step_fault;
extern const FaultKindDescriptor clock_offset_fault;
extern const FaultKindDescriptor clock_rate_fault;
extern const FaultKindDescriptor clock_slew_fault;
extern const FaultKindDescriptor pause_fault;
extern const FaultKindDescriptor resume_fault;
extern const FaultKindDescriptor crash_fault;
extern const FaultKindDescriptor power_loss_fault;
extern const FaultKindDescriptor shutdown_fault;
extern const FaultKindDescriptor restart_fault;
extern const FaultKindDescriptor partition_fault;
extern const FaultKindDescriptor heal_fault;
extern const FaultKindDescriptor hold_message_fault;
extern const FaultKindDescriptor link_loss_fault;

const std::vector<const FaultKindDescriptor*>& fault_kinds() {
  static const std::vector<const FaultKindDescriptor*> kinds = [] {
    std::vector<const FaultKindDescriptor*> out = {
        &clock_step_fault,   &clock_offset_fault, &clock_rate_fault, &clock_slew_fault,
        &pause_fault,        &resume_fault,       &crash_fault,      &power_loss_fault,
        &shutdown_fault,     &restart_fault,      &partition_fault,  &heal_fault,
        &hold_message_fault, &link_loss_fault,
    };
    for (std::size_t i = 0; i < out.size(); ++i) {
      SIM_ASSERT_EQ(static_cast<std::size_t>(out[i]->kind), i);
    }
    return out;
  }();
  return kinds;
}

const FaultKindDescriptor& fault_kind(FaultKind kind) {
  return *fault_kinds().at(static_cast<std::size_t>(kind));
}

const FaultKindDescriptor* find_fault_kind(const std::string& name) {
  for (const FaultKindDescriptor* kind : fault_kinds()) {
    if (name == kind->name) return kind;
  }
  return nullptr;
}

namespace fault_fields {

std::vector<FaultSpec> no_shorter(const FaultSpec&) {
  return {};
}

// Halved toward zero, keeping at least 1 ms where zero means "none".
std::vector<FaultSpec> shorter_duration(const FaultSpec& fault) {
  if (!fault.duration_ms || *fault.duration_ms <= 1) return {};
  FaultSpec shorter = fault;
  shorter.duration_ms = *fault.duration_ms / 2;
  return {shorter};
}

std::vector<FaultSpec> shorter_until(const FaultSpec& fault) {
  if (!fault.until_ms || *fault.until_ms <= fault.at_ms + 1) return {};
  FaultSpec shorter = fault;
  shorter.until_ms = fault.at_ms + (*fault.until_ms - fault.at_ms) / 2;
  return {shorter};
}

std::vector<FaultSpec> shorter_delta(const FaultSpec& fault) {
  if (fault.delta_ms >= -1 && fault.delta_ms <= 1) return {};
  FaultSpec half = fault;
  half.delta_ms /= 2;
  return {half};
}

void change_target_at(FaultWorld& world, const FaultSpec& fault, TargetChange change,
                      bool clock_change) {
  const ProcessId target = world.id_of(fault.target);
  world.simulator().schedule_action(Instant::from_ms(fault.at_ms),
                                    [&world, target, fault, change, clock_change] {
                                      change(world, target, fault);
                                      world.record_fault(target, fault);
                                      if (clock_change) world.clock_changed(target);
                                    });
}

std::string possessive(const std::string& name, const std::string& text) {
  return name + "'s " + text;
}

std::string passive(const std::string& name, const std::string& text) {
  return name + " was " + text;
}

}  // namespace fault_fields

}  // namespace redlock_sim
