// clock_slew: NTP-style slew: the clock's rate changes by slew_ppm until amount_ms is absorbed.
#include "sim/faults/fault_kind.hpp"

namespace redlock_sim {

namespace {

// The kind's own fields (FaultSpec::fields holds them).
struct ClockSlewFields {
  int64_t amount_ms = 0;  // what the slew absorbs, either sign
  int64_t slew_ppm = 500;
  bool operator==(const ClockSlewFields&) const = default;
};

const ClockSlewFields& own(const FaultSpec& fault) {
  return fault_fields::own<ClockSlewFields>(fault);
}

// A smaller amount: halved toward zero, at the same ppm.
std::vector<FaultSpec> shorter(const FaultSpec& fault) {
  const std::optional<int64_t> half = fault_fields::halved(own(fault).amount_ms);
  if (!half) return {};
  ClockSlewFields smaller = own(fault);
  smaller.amount_ms = *half;
  FaultSpec out = fault;
  out.fields = FaultFields::of(smaller);
  return {out};
}

void read(FaultFieldReader& fields, FaultSpec& fault) {
  fault.target = fields.string("target");
  ClockSlewFields own{.amount_ms =
                          fields.integer("amount_ms", -fault_time_ms_max, fault_time_ms_max)};
  own.slew_ppm = fields.integer("slew_ppm", 1, 999'999, 500);
  fault.fields = FaultFields::of(own);
}

void write(const FaultSpec& fault, FaultFieldWriter& fields) {
  fields.string("target", fault.target);
  fields.integer("amount_ms", own(fault).amount_ms);
  fields.integer("slew_ppm", own(fault).slew_ppm);
}

void apply(FaultWorld& world, const std::vector<FaultSpec>& faults, std::size_t index) {
  fault_fields::change_target_at(
      world, faults[index],
      [](FaultWorld& w, ProcessId target, const FaultSpec& fault) {
        w.simulator().slew_clock(target, Duration::from_ms(own(fault).amount_ms),
                                 own(fault).slew_ppm);
      },
      true);
}

std::optional<std::string> story(const FaultSpec& fault) {
  return "clock slews " + std::to_string(own(fault).amount_ms) + " ms at " +
         std::to_string(own(fault).slew_ppm) + " ppm";
}

FaultClockReach clock_reach(const FaultSpec& fault) {
  return {.shift_ms = own(fault).amount_ms, .slewed = true};
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
    .shorter = shorter,
    .real_mode_refusal = "clock rates and slews cannot be staged for real",
    .probe = "clock_slew",
    .clock_reach = clock_reach,
    .drawing = drawing,
    .doc_fields = "`target`, `amount_ms`, `slew_ppm` (500)",
    .doc_effect = "NTP-style slew: rate changes until the amount is absorbed",
};

}  // namespace redlock_sim
