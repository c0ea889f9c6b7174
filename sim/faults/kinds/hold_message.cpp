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

FaultDrawing drawing(const FaultSpec& fault) {
  const std::string until =
      fault.until_ms ? " until " + std::to_string(*fault.until_ms) + " ms" : "";
  return {.sender_mark =
              FaultMark{"hold-message", "held " + fault.command,
                        "the network holds its next " + fault.command + " to " + fault.to + until}};
}

void draw(FaultDraw& draw, FaultSpec& fault) {
  fault.from = draw.client();
  fault.until_ms = fault.at_ms + draw.between(1, draw.bounds().message_delay_ms_max);
}

void stage(RealFaultStage& stage, const std::vector<FaultSpec>& faults, std::size_t index) {
  const FaultSpec& fault = faults[index];
  stage.add_hold(HoldRule{
      .from = stage.id_of(fault.from),
      .to = fault.to.empty() ? std::nullopt : std::optional<ProcessId>(stage.id_of(fault.to)),
      .command = fault.command,
      .active_from = Instant::from_ms(fault.at_ms),
      .release_at = Instant::from_ms(*fault.until_ms)});
  stage.lasts_until(*fault.until_ms);
  const ProcessId teller = stage.id_of(fault.from);
  stage.when(fault, [&stage, teller, fault] { stage.record_fault(teller, fault); });
}

}  // namespace

// Declared extern first so the constant has external linkage: the registry that the build
// generates from this folder names it as <file name>_fault.
extern const FaultKindDescriptor hold_message_fault;
const FaultKindDescriptor hold_message_fault{
    .name = "hold_message",
    .help = "holds the first matching message until until_ms",
    .read = read,
    .write = write,
    .apply = apply,
    .story = story,
    .shorter = fault_fields::shorter_until,
    .any_target_class = "message-delay",
    .drawing = drawing,
    .draw = draw,
    .stage = stage,
    .doc_fields = "`from`, `to` (optional), `command` (optional), `until_ms`",
    .doc_effect =
        "holds the first matching message until `until_ms` (Kleppmann's 90 s packet); FIFO holds "
        "what follows it on that link",
};

}  // namespace redlock_sim
