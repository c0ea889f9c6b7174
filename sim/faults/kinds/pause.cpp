// pause: stop-the-world (a GC, SIGSTOP, a VM migration): the process runs nothing while its
// clocks keep going; it resumes after duration_ms, or at a `resume`.
#include "sim/faults/fault_kind.hpp"

namespace redlock_sim {

namespace {

void read(FaultFieldReader& fields, FaultSpec& fault) {
  fault.target = fields.string("target");
  fault.duration_ms = fields.optional_integer("duration_ms", 0, fault_time_ms_max);
}

void write(const FaultSpec& fault, FaultFieldWriter& fields) {
  fields.string("target", fault.target);
  if (fault.duration_ms) fields.integer("duration_ms", *fault.duration_ms);
}

void apply(FaultWorld& world, const std::vector<FaultSpec>& faults, std::size_t index) {
  const FaultSpec& fault = faults[index];
  fault_fields::change_target_at(
      world, fault,
      [](FaultWorld& w, ProcessId target, const FaultSpec&) { w.simulator().pause(target); },
      false);
  if (fault.duration_ms) {
    const ProcessId target = world.id_of(fault.target);
    const Instant end = Instant::from_ms(fault.at_ms) + Duration::from_ms(*fault.duration_ms);
    world.simulator().schedule_action(end, [&world, target] {
      world.simulator().resume(target);
      world.record_pause_ended(target);
    });
  }
}

std::optional<std::string> story(const FaultSpec& fault) {
  return "paused" +
         (fault.duration_ms ? " for " + std::to_string(*fault.duration_ms) + " ms" : std::string());
}

FaultDrawing drawing(const FaultSpec& fault) {
  return {.pause_band_ms = fault.duration_ms};
}

void draw(FaultDraw& draw, FaultSpec& fault) {
  fault.target = draw.target();
  fault.duration_ms = draw.between(1, draw.bounds().pause_ms_max);
}

void stage(RealFaultStage& stage, const std::vector<FaultSpec>& faults, std::size_t index) {
  const FaultSpec& fault = faults[index];
  const ProcessId target = stage.id_of(fault.target);
  stage.when(fault, [&stage, target, fault] {
    stage.pause(target, true);
    stage.record_fault(target, fault);
  });
  if (!fault.duration_ms) return;
  const int64_t resume_ms = fault.at_ms + *fault.duration_ms;
  stage.at(resume_ms, [&stage, target, resume_ms, name = fault.target] {
    stage.timed("resume " + name, resume_ms);
    stage.pause(target, false);
    stage.record_pause_ended(target);
  });
}

}  // namespace

// Declared extern first so the constant has external linkage: the registry that the build
// generates from this folder names it as <file name>_fault.
extern const FaultKindDescriptor pause_fault;
const FaultKindDescriptor pause_fault{
    .name = "pause",
    .help = "stop-the-world: the process runs nothing; its clocks keep going",
    .read = read,
    .write = write,
    .apply = apply,
    .story = story,
    .sentence = fault_fields::passive,
    .shorter = fault_fields::shorter_duration,
    .node_class = "node-pause",
    .client_class = "client-pause",
    .probe = "pause",
    .drawing = drawing,
    .draw = draw,
    .stage = stage,
    .doc_fields = "`target`, `duration_ms` (optional)",
    .doc_effect = "stop-the-world: the process runs nothing; clocks keep going",
};

}  // namespace redlock_sim
