// hold_message: the network holds the first message from `from` (to `to`, of `command`, when
// given) sent after at_ms, and delivers it at until_ms (the 90 s packet).
#include "sim/faults/fault_kind.hpp"

namespace redlock_sim {

namespace {

void read(FaultFieldReader& fields, FaultSpec& fault) {
  fault.from = fields.string("from");
  fault.to = fields.string("to", "");
  fault.command = fields.string("command", "");
  fault.until_ms = fields.integer("until_ms", 0, fault_time_ms_max);
}

void write(const FaultSpec& fault, FaultFieldWriter& fields) {
  fields.string("from", fault.from);
  if (!fault.to.empty()) fields.string("to", fault.to);
  if (!fault.command.empty()) fields.string("command", fault.command);
  fields.integer("until_ms", fault.until_ms.value_or(fault.at_ms));
}

void apply(FaultWorld& world, const std::vector<FaultSpec>& faults, std::size_t index) {
  const FaultSpec& fault = faults[index];
  const Instant at = Instant::from_ms(fault.at_ms);
  world.simulator().network().add_hold(HoldRule{
      .from = world.id_of(fault.from),
      .to = fault.to.empty() ? std::nullopt : std::optional<ProcessId>(world.id_of(fault.to)),
      .command = fault.command,
      .active_from = at,
      .release_at = Instant::from_ms(*fault.until_ms)});
  const ProcessId teller = world.id_of(fault.from);
  world.simulator().schedule_action(at,
                                    [&world, teller, fault] { world.record_fault(teller, fault); });
}

std::optional<std::string> story(const FaultSpec& fault) {
  return hold_story_text(fault);
}

}  // namespace

// Declared extern first so the constant has external linkage (the registry names it).
extern const FaultKindDescriptor hold_message_fault;
const FaultKindDescriptor hold_message_fault{
    .kind = FaultKind::hold_message,
    .name = "hold_message",
    .help = "holds the first matching message until until_ms",
    .read = read,
    .write = write,
    .apply = apply,
    .story = story,
    .sentence = nullptr,
    .shorter = fault_fields::shorter_until,
    .node_class = nullptr,
    .client_class = nullptr,
    .any_target_class = "message-delay",
    .real_mode_refusal = nullptr,
};

}  // namespace redlock_sim
