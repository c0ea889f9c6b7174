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

void draw(FaultDraw& draw, FaultSpec& fault) {
  fault.target = draw.target();
  const int64_t max_ms = draw.bounds().clock_step_ms_max;
  fault.delta_ms = draw.between(-max_ms, max_ms);
  if (fault.delta_ms == 0) fault.delta_ms = max_ms;
}

FaultClockReach clock_reach(const FaultSpec& fault) {
  return {.shift_ms = fault.delta_ms};
}

FaultDrawing drawing(const FaultSpec& fault) {
  const std::string delta = (fault.delta_ms >= 0 ? "+" : "") + std::to_string(fault.delta_ms);
  return {.past_trace = FaultMark{"clock-step", "wall " + delta + " ms",
                                  "wall clock stepped " + delta + " ms"}};
}

void stage(RealFaultStage& stage, const std::vector<FaultSpec>& faults, std::size_t index) {
  const FaultSpec& fault = faults[index];
  const ProcessId target = stage.id_of(fault.target);
  stage.when(fault, [&stage, target, fault] {
    stage.step_clock(target, fault.delta_ms * 1'000'000);
    stage.record_fault(target, fault);
    stage.probe("clock_step");
  });
}

}  // namespace

// Declared extern first so the constant has external linkage: the registry that the build
// generates from this folder names it as <file name>_fault.
extern const FaultKindDescriptor clock_step_fault;
const FaultKindDescriptor clock_step_fault{
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
    .probe = "clock_step",
    .clock_reach = clock_reach,
    .drawing = drawing,
    .draw = draw,
    .stage = stage,
    .doc_fields = "`target`, `delta_ms`",
    .doc_effect = "the wall clock jumps (either sign); monotonic unaffected",
};

}  // namespace redlock_sim
