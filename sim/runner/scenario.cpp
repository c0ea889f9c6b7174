#include "sim/runner/scenario.hpp"

namespace redlock_sim {

const char* step_kind_name(StepKind kind) {
  switch (kind) {
    case StepKind::acquire:
      return "acquire";
    case StepKind::release:
      return "release";
    case StepKind::extend:
      return "extend";
    case StepKind::read:
      return "read";
    case StepKind::write:
      return "write";
    case StepKind::increment:
      return "increment";
    case StepKind::sleep:
      return "sleep";
    case StepKind::stop_if_expired:
      return "stop_if_expired";
  }
  return "unknown";
}

const char* fault_kind_name(FaultKind kind) {
  switch (kind) {
    case FaultKind::clock_step:
      return "clock_step";
    case FaultKind::clock_offset:
      return "clock_offset";
    case FaultKind::clock_rate:
      return "clock_rate";
    case FaultKind::clock_slew:
      return "clock_slew";
    case FaultKind::pause:
      return "pause";
    case FaultKind::resume:
      return "resume";
    case FaultKind::crash:
      return "crash";
    case FaultKind::power_loss:
      return "power_loss";
    case FaultKind::shutdown:
      return "shutdown";
    case FaultKind::restart:
      return "restart";
    case FaultKind::partition:
      return "partition";
    case FaultKind::heal:
      return "heal";
    case FaultKind::hold_message:
      return "hold_message";
  }
  return "unknown";
}

}  // namespace redlock_sim
