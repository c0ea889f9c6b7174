// pause_burst: a train of stop-the-world pauses (a JVM in a GC storm, a VM host that keeps
// stealing the CPU): from at_ms on, the target is paused `count` times for duration_ms, one
// pause every every_ms. Each pause is a pause (the same story line, probe and resume event), so
// a lock client that checks its validity between two pauses can still be caught by the next.
// In real mode each pause is a SIGSTOP and its end a SIGCONT, as for `pause`.
#include "sim/faults/fault_kind.hpp"
#include "sim/kernel/assert.hpp"

namespace redlock_sim {

namespace {

// The kind's own fields (FaultSpec::fields holds them).
struct PauseBurstFields {
  int64_t duration_ms = 0;  // each pause
  int64_t every_ms = 0;     // from one pause's start to the next one's
  int64_t count = 0;
  bool operator==(const PauseBurstFields&) const = default;
};

constexpr int64_t count_max = 10'000;

const PauseBurstFields& own(const FaultSpec& fault) {
  const PauseBurstFields* fields = fault.fields.get<PauseBurstFields>();
  SIM_ASSERT(fields != nullptr);
  return *fields;
}

void read(FaultFieldReader& fields, FaultSpec& fault) {
  fault.target = fields.string("target");
  PauseBurstFields own{.duration_ms = fields.integer("duration_ms", 1, fault_time_ms_max),
                       .every_ms = fields.integer("every_ms", 1, fault_time_ms_max),
                       .count = fields.integer("count", 1, count_max)};
  if (own.duration_ms >= own.every_ms) {
    fields.fail("duration_ms", "expected duration_ms < every_ms: a pause ends before the next");
  }
  if ((own.count - 1) * own.every_ms > fault_time_ms_max) {
    fields.fail("count", "expected the last pause to begin within " +
                             std::to_string(fault_time_ms_max) + " ms of the first");
  }
  fault.fields = FaultFields::of(own);
}

void write(const FaultSpec& fault, FaultFieldWriter& fields) {
  fields.string("target", fault.target);
  fields.integer("duration_ms", own(fault).duration_ms);
  fields.integer("every_ms", own(fault).every_ms);
  fields.integer("count", own(fault).count);
}

// The i-th pause of the burst, as the fault the story and the event log show.
FaultSpec nth_pause(const FaultSpec& fault, int64_t i) {
  FaultSpec pause = fault;
  pause.at_ms = fault.at_ms + i * own(fault).every_ms;
  return pause;
}

void apply(FaultWorld& world, const std::vector<FaultSpec>& faults, std::size_t index) {
  const FaultSpec& fault = faults[index];
  const ProcessId target = world.id_of(fault.target);
  for (int64_t i = 0; i < own(fault).count; ++i) {
    const FaultSpec pause = nth_pause(fault, i);
    fault_fields::change_target_at(
        world, pause,
        [](FaultWorld& w, ProcessId process, const FaultSpec&) { w.simulator().pause(process); },
        false);
    const Instant end = Instant::from_ms(pause.at_ms + own(fault).duration_ms);
    world.simulator().schedule_action(end, [&world, target] {
      world.simulator().resume(target);
      world.record_pause_ended(target);
    });
  }
}

void stage(RealFaultStage& stage, const std::vector<FaultSpec>& faults, std::size_t index) {
  const FaultSpec& fault = faults[index];
  const ProcessId target = stage.id_of(fault.target);
  for (int64_t i = 0; i < own(fault).count; ++i) {
    const FaultSpec pause = nth_pause(fault, i);
    stage.when(pause, [&stage, target, pause] {
      stage.pause(target, true);
      stage.record_fault(target, pause);
    });
    const int64_t resume_ms = pause.at_ms + own(fault).duration_ms;
    stage.at(resume_ms, [&stage, target, resume_ms, name = fault.target] {
      stage.timed("resume " + name, resume_ms);
      stage.pause(target, false);
      stage.record_pause_ended(target);
    });
  }
}

std::optional<std::string> story(const FaultSpec& fault) {
  return "paused for " + std::to_string(own(fault).duration_ms) + " ms (a burst of " +
         std::to_string(own(fault).count) + ", one every " + std::to_string(own(fault).every_ms) +
         " ms)";
}

// Fewer pauses first (half of them), then shorter ones.
std::vector<FaultSpec> shorter(const FaultSpec& fault) {
  std::vector<FaultSpec> out;
  if (own(fault).count > 1) {
    PauseBurstFields fewer = own(fault);
    fewer.count = own(fault).count / 2;
    out.push_back(fault);
    out.back().fields = FaultFields::of(fewer);
  }
  if (own(fault).duration_ms > 1) {
    PauseBurstFields briefer = own(fault);
    briefer.duration_ms = own(fault).duration_ms / 2;
    out.push_back(fault);
    out.back().fields = FaultFields::of(briefer);
  }
  return out;
}

}  // namespace

// Declared extern first so the constant has external linkage: the registry that the build
// generates from this folder names it as <file name>_fault.
extern const FaultKindDescriptor pause_burst_fault;
const FaultKindDescriptor pause_burst_fault{
    .name = "pause_burst",
    .help = "count stop-the-world pauses of duration_ms, one every every_ms (a GC storm)",
    .read = read,
    .write = write,
    .apply = apply,
    .story = story,
    .sentence = fault_fields::passive,
    .shorter = shorter,
    .probe = "pause",
    .stage = stage,
    .doc_fields = "`target`, `duration_ms`, `every_ms`, `count` (1 to 10000)",
    .doc_effect =
        "`count` stop-the-world pauses of `duration_ms` each, one every `every_ms` "
        "(`duration_ms` < `every_ms`): a GC storm; each is told, probed and resumed "
        "as a `pause`",
};

}  // namespace redlock_sim
