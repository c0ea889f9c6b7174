// resume: ends a pause.
#include "sim/faults/fault_kind.hpp"

namespace redlock_sim {

namespace {

void read(FaultFieldReader& fields, FaultSpec& fault) {
  fault.target = fields.string("target");
}

void write(const FaultSpec& fault, FaultFieldWriter& fields) {
  fields.string("target", fault.target);
}

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
    .read = read,
    .write = write,
    .apply = apply,
    .story = story,
    .sentence = nullptr,
    .shorter = fault_fields::no_shorter,
    .node_class = nullptr,
    .client_class = nullptr,
    .any_target_class = nullptr,
    .real_mode_refusal = nullptr,
    .stage = stage,
    .doc_fields = "`target`",
    .doc_effect = "ends a pause",
};

}  // namespace redlock_sim
