// clock_slew: NTP-style slew: the clock's rate changes by slew_ppm until amount_ms is absorbed.
#include "sim/faults/fault_kind.hpp"

namespace redlock_sim {

namespace {

void read(FaultFieldReader& fields, FaultSpec& fault) {
  fault.target = fields.string("target");
  fault.delta_ms = fields.integer("amount_ms", -fault_time_ms_max, fault_time_ms_max);
  fault.slew_ppm = fields.integer("slew_ppm", 1, 999'999, 500);
}

void write(const FaultSpec& fault, FaultFieldWriter& fields) {
  fields.string("target", fault.target);
  fields.integer("amount_ms", fault.delta_ms);
  fields.integer("slew_ppm", fault.slew_ppm);
}

void apply(FaultWorld& world, const std::vector<FaultSpec>& faults, std::size_t index) {
  fault_fields::change_target_at(
      world, faults[index],
      [](FaultWorld& w, ProcessId target, const FaultSpec& fault) {
        w.simulator().slew_clock(target, Duration::from_ms(fault.delta_ms), fault.slew_ppm);
      },
      true);
}

std::optional<std::string> story(const FaultSpec& fault) {
  return "clock slews " + std::to_string(fault.delta_ms) + " ms at " +
         std::to_string(fault.slew_ppm) + " ppm";
}

FaultClockReach clock_reach(const FaultSpec& fault) {
  return {.shift_ms = fault.delta_ms, .slewed = true};
}

FaultDrawing drawing(const FaultSpec&) {
  return {.past_trace = FaultMark{"clock-rate", "clock_slew", "clock_slew (from the scenario)"}};
}

}  // namespace

// Declared extern first so the constant has external linkage: the registry that the build
// generates from this folder names it as <file name>_fault.
extern const FaultKindDescriptor clock_slew_fault;
const FaultKindDescriptor clock_slew_fault{
    .name = "clock_slew",
    .help = "NTP-style slew: the rate changes until amount_ms is absorbed",
    .read = read,
    .write = write,
    .apply = apply,
    .story = story,
    .sentence = fault_fields::possessive,
    .shorter = fault_fields::shorter_delta,
    .node_class = nullptr,
    .client_class = nullptr,
    .any_target_class = nullptr,
    .real_mode_refusal = "clock rates and slews cannot be staged for real",
    .probe = "clock_slew",
    .clock_reach = clock_reach,
    .drawing = drawing,
    .doc_fields = "`target`, `amount_ms`, `slew_ppm` (500)",
    .doc_effect = "NTP-style slew: rate changes until the amount is absorbed",
};

}  // namespace redlock_sim
