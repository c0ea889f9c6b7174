// resume: ends a pause.
#include "sim/faults/fault_kind.hpp"

namespace redlock_sim {

namespace {

void apply(FaultWorld& world, const std::vector<FaultSpec>& faults, std::size_t index) {
  fault_fields::change_target_at(
      world, faults[index],
      [](FaultWorld& w, ProcessId target, const FaultSpec&) { w.simulator().resume(target); },
      false);
}

std::optional<std::string> story(const FaultSpec&) {
  return "resumed";
}

void stage(RealFaultStage& stage, const std::vector<FaultSpec>& faults, std::size_t index) {
  const FaultSpec& fault = faults[index];
  const ProcessId target = stage.id_of(fault.target);
  stage.when(fault, [&stage, target, fault] {
    stage.pause(target, false);
    stage.record_fault(target, fault);
  });
}

}  // namespace

// Declared extern first so the constant has external linkage: the registry that the build
// generates from this folder names it as <file name>_fault.
extern const FaultKindDescriptor resume_fault;
const FaultKindDescriptor resume_fault{
    .name = "resume",
    .help = "ends a pause",
    .read = fault_fields::read_target,
    .write = fault_fields::write_target,
    .apply = apply,
    .story = story,
    .shorter = fault_fields::no_shorter,
    .stage = stage,
    .doc_fields = "`target`",
    .doc_effect = "ends a pause",
};

}  // namespace redlock_sim
