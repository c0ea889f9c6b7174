// clock_step: a process's wall clock jumps by delta_ms (NTP step, an administrator); its
// monotonic clock is unaffected.
#include "sim/faults/fault_kind.hpp"

namespace redlock_sim {

namespace {

// The kind's own fields (FaultSpec::fields holds them).
struct ClockStepFields {
  int64_t delta_ms = 0;  // the wall clock's jump, either sign
  bool operator==(const ClockStepFields&) const = default;
};

int64_t delta_ms(const FaultSpec& fault) {
  return fault_fields::own<ClockStepFields>(fault).delta_ms;
}

// A smaller jump: halved toward zero.
std::vector<FaultSpec> shorter(const FaultSpec& fault) {
  const std::optional<int64_t> half = fault_fields::halved(delta_ms(fault));
  if (!half) return {};
  FaultSpec smaller = fault;
  smaller.fields = FaultFields::of(ClockStepFields{.delta_ms = *half});
  return {smaller};
}

void read(FaultFieldReader& fields, FaultSpec& fault) {
  fault.target = fields.string("target");
  fault.fields = FaultFields::of(ClockStepFields{
      .delta_ms = fields.integer("delta_ms", -fault_time_ms_max, fault_time_ms_max)});
}

void write(const FaultSpec& fault, FaultFieldWriter& fields) {
  fields.string("target", fault.target);
  fields.integer("delta_ms", delta_ms(fault));
}

void apply(FaultWorld& world, const std::vector<FaultSpec>& faults, std::size_t index) {
  fault_fields::change_target_at(
      world, faults[index],
      [](FaultWorld& w, ProcessId target, const FaultSpec& fault) {
        w.simulator().step_wall_clock(target, Duration::from_ms(delta_ms(fault)));
      },
      true);
}

std::optional<std::string> story(const FaultSpec& fault) {
  return "wall clock steps " + std::string(delta_ms(fault) >= 0 ? "+" : "") +
         std::to_string(delta_ms(fault)) + " ms";
}

void draw(FaultDraw& draw, FaultSpec& fault) {
  fault.target = draw.target();
  const int64_t max_ms = draw.bounds().clock_step_ms_max;
  const int64_t delta = draw.between(-max_ms, max_ms);
  fault.fields = FaultFields::of(ClockStepFields{.delta_ms = delta == 0 ? max_ms : delta});
}

FaultClockReach clock_reach(const FaultSpec& fault) {
  return {.shift_ms = delta_ms(fault)};
}

FaultDrawing drawing(const FaultSpec& fault) {
  const std::string delta = (delta_ms(fault) >= 0 ? "+" : "") + std::to_string(delta_ms(fault));
  return {.past_trace = FaultMark{"clock-step", "wall " + delta + " ms",
                                  "wall clock stepped " + delta + " ms"}};
}

void stage(RealFaultStage& stage, const std::vector<FaultSpec>& faults, std::size_t index) {
  const FaultSpec& fault = faults[index];
  const ProcessId target = stage.id_of(fault.target);
  stage.when(fault, [&stage, target, fault] {
    stage.step_clock(target, delta_ms(fault) * 1'000'000);
    stage.record_fault(target, fault);
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
    .shorter = shorter,
    .node_class = "node-clock-step",
    .client_class = "client-clock-step",
    .probe = "clock_step",
    .clock_reach = clock_reach,
    .drawing = drawing,
    .draw = draw,
    .stage = stage,
    .doc_fields = "`target`, `delta_ms`",
    .doc_effect = "the wall clock jumps (either sign); monotonic unaffected",
};

}  // namespace redlock_sim
