// clock_rate: a process's oscillator runs at rate_ppm (or rate) from now on.
#include "sim/faults/fault_kind.hpp"

namespace redlock_sim {

namespace {

// The kind's own fields (FaultSpec::fields holds them).
struct ClockRateFields {
  Rate rate = Rate::one();  // the oscillator's rate from at_ms on
  bool operator==(const ClockRateFields&) const = default;
};

Rate rate(const FaultSpec& fault) {
  return fault_fields::own<ClockRateFields>(fault).rate;
}

void read(FaultFieldReader& fields, FaultSpec& fault) {
  fault.target = fields.string("target");
  if (!fields.has("rate_ppm") && !fields.has("rate"))
    fields.fail("", "expected \"rate_ppm\" or \"rate\"");
  fault.fields = FaultFields::of(ClockRateFields{.rate = fields.rate()});
}

void write(const FaultSpec& fault, FaultFieldWriter& fields) {
  fields.string("target", fault.target);
  fields.rate("rate", rate(fault));
}

void apply(FaultWorld& world, const std::vector<FaultSpec>& faults, std::size_t index) {
  fault_fields::change_target_at(
      world, faults[index],
      [](FaultWorld& w, ProcessId target, const FaultSpec& fault) {
        w.simulator().set_clock_rate(target, rate(fault));
      },
      true);
}

std::optional<std::string> story(const FaultSpec& fault) {
  return "clock rate becomes " + std::to_string(rate(fault).numerator) + "/" +
         std::to_string(rate(fault).denominator);
}

// Halves the distance of the rate from one.
std::vector<FaultSpec> shorter(const FaultSpec& fault) {
  if (rate(fault) == Rate::one()) return {};
  FaultSpec half = fault;
  const Rate r = rate(fault);
  half.fields = FaultFields::of(ClockRateFields{
      .rate = Rate{r.numerator + r.denominator, 2 * r.denominator}.times(Rate::one())});
  return {half};
}

FaultClockReach clock_reach(const FaultSpec& fault) {
  return {.rate = rate(fault)};
}

FaultDrawing drawing(const FaultSpec&) {
  return {.past_trace = FaultMark{"clock-rate", "clock_rate", "clock_rate (from the scenario)"}};
}

void draw(FaultDraw& draw, FaultSpec& fault) {
  fault.target = draw.target();
  const int64_t max_ppm = draw.bounds().clock_rate_ppm_max;
  const int64_t ppm = draw.between(-max_ppm, max_ppm);
  fault.fields = FaultFields::of(ClockRateFields{.rate = Rate::ppm(ppm == 0 ? 1 : ppm)});
}

}  // namespace

// Declared extern first so the constant has external linkage: the registry that the build
// generates from this folder names it as <file name>_fault.
extern const FaultKindDescriptor clock_rate_fault;
const FaultKindDescriptor clock_rate_fault{
    .name = "clock_rate",
    .help = "a process's oscillator runs at rate_ppm (or rate) from now on",
    .read = read,
    .write = write,
    .apply = apply,
    .story = story,
    .sentence = fault_fields::possessive,
    .shorter = shorter,
    .node_class = "node-clock-rate",
    .client_class = "client-clock-rate",
    .real_mode_refusal = "clock rates and slews cannot be staged for real",
    .probe = "clock_rate",
    .clock_reach = clock_reach,
    .drawing = drawing,
    .draw = draw,
    .doc_fields = "`target`, `rate_ppm` or `rate`",
    .doc_effect = "the oscillator's rate from now on (both clocks)",
};

}  // namespace redlock_sim
