// What the three ways a process stops (crash, power_loss, shutdown) share: a target, an optional
// restart after restart_after_ms timed on the host's monotonic or wall clock.
#pragma once

#include "sim/faults/fault_kind.hpp"

namespace redlock_sim::process_stop {

inline void read(FaultFieldReader& fields, FaultSpec& fault) {
  fault.target = fields.string("target");
  fault.duration_ms = fields.optional_integer("restart_after_ms", 0, fault_time_ms_max);
  fault.restart_clock = fields.one_of("restart_clock", {"monotonic", "wall"}, "monotonic") == "wall"
                            ? ClockKind::wall
                            : ClockKind::monotonic;
}

inline void write(const FaultSpec& fault, FaultFieldWriter& fields) {
  fields.string("target", fault.target);
  if (fault.duration_ms) fields.integer("restart_after_ms", *fault.duration_ms);
  if (fault.restart_clock == ClockKind::wall) fields.string("restart_clock", "wall");
}

// Stops the target at at_ms, `how` (its restart, if any, is the runner's or the harness's).
template <StopKind how>
void apply(FaultWorld& world, const std::vector<FaultSpec>& faults, std::size_t index) {
  world.schedule_stop(faults[index], how);
}
template <StopKind how>
void stage(RealFaultStage& stage, const std::vector<FaultSpec>& faults, std::size_t index) {
  stage.when(faults[index], [&stage, fault = faults[index]] { stage.stop(fault, how); });
}

// Past the trace, the report marks the stop on the target's row.
inline FaultDrawing drawing(const FaultSpec& fault) {
  return {.past_trace = FaultMark{"crash", "crash", fault.kind}};
}

// The swarm's crashes and power losses: a restart after up to down_ms_max.
inline void draw(FaultDraw& draw, FaultSpec& fault) {
  fault.target = draw.target();
  fault.duration_ms = draw.between(0, draw.bounds().down_ms_max);
}

}  // namespace redlock_sim::process_stop
