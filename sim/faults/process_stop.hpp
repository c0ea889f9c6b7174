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

inline void apply(FaultWorld& world, const std::vector<FaultSpec>& faults, std::size_t index) {
  world.schedule_stop(faults[index]);
}

}  // namespace redlock_sim::process_stop
