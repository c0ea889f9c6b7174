// clock_offset: a process's wall clock is set to true time + offset_ms (an absolute setting,
// where clock_step is relative).
#include "sim/faults/fault_kind.hpp"

namespace redlock_sim {

namespace {

// The kind's own fields (FaultSpec::fields holds them).
struct ClockOffsetFields {
  int64_t offset_ms = 0;  // the wall clock reads true time + offset_ms
  bool operator==(const ClockOffsetFields&) const = default;
};

int64_t offset_ms(const FaultSpec& fault) {
  return fault_fields::own<ClockOffsetFields>(fault).offset_ms;
}

void read(FaultFieldReader& fields, FaultSpec& fault) {
  fault.target = fields.string("target");
  fault.fields = FaultFields::of(ClockOffsetFields{
      .offset_ms = fields.integer("offset_ms", -fault_time_ms_max, fault_time_ms_max)});
}

void write(const FaultSpec& fault, FaultFieldWriter& fields) {
  fields.string("target", fault.target);
  fields.integer("offset_ms", offset_ms(fault));
}

void apply(FaultWorld& world, const std::vector<FaultSpec>& faults, std::size_t index) {
  fault_fields::change_target_at(
      world, faults[index],
      [](FaultWorld& w, ProcessId target, const FaultSpec& fault) {
        w.simulator().set_wall_clock_offset(target, Duration::from_ms(offset_ms(fault)));
      },
      true);
}

std::optional<std::string> story(const FaultSpec& fault) {
  return "wall clock set to true time " + std::to_string(offset_ms(fault)) + " ms";
}

FaultClockReach clock_reach(const FaultSpec& fault) {
  return {.shift_ms = offset_ms(fault)};
}

FaultDrawing drawing(const FaultSpec&) {
  return {.past_trace =
              FaultMark{"clock-rate", "clock_offset", "clock_offset (from the scenario)"}};
}

void stage(RealFaultStage& stage, const std::vector<FaultSpec>& faults, std::size_t index) {
  const FaultSpec& fault = faults[index];
  const ProcessId target = stage.id_of(fault.target);
  stage.when(fault, [&stage, target, fault] {
    stage.set_clock_offset(target, offset_ms(fault));
    stage.record_fault(target, fault);
  });
}

}  // namespace

// Declared extern first so the constant has external linkage: the registry that the build
// generates from this folder names it as <file name>_fault.
extern const FaultKindDescriptor clock_offset_fault;
const FaultKindDescriptor clock_offset_fault{
    .name = "clock_offset",
    .help = "a process's wall clock is set to true time + offset_ms",
    .read = read,
    .write = write,
    .apply = apply,
    .story = story,
    .sentence = fault_fields::possessive,
    .shorter = fault_fields::no_shorter,
    .probe = "clock_step",
    .clock_reach = clock_reach,
    .drawing = drawing,
    .stage = stage,
    .doc_fields = "`target`, `offset_ms`",
    .doc_effect = "the wall clock is set to true time + offset",
};

}  // namespace redlock_sim
