// link_loss: from at_ms until until_ms (or the end of the run), the link from `from` to `to`
// loses each message sent on it with probability `loss` ([n, d]; every message by default): a
// flaky NIC, a congested switch dropping packets in one direction. Unlike a partition, messages
// already in flight when it begins still arrive, the other direction is untouched and the loss
// may be partial; at until_ms the link's own loss (network.links, none by default) comes back.
// Draws come from the link's named stream, like network.links' loss.
#include <memory>

#include "sim/faults/fault_kind.hpp"

namespace redlock_sim {

namespace {

// The kind's own fields (FaultSpec::fields holds them).
struct LinkLossFields {
  std::pair<uint32_t, uint32_t> loss = {1, 1};  // each message is lost with n/d
  bool operator==(const LinkLossFields&) const = default;
};

std::pair<uint32_t, uint32_t> loss(const FaultSpec& fault) {
  return fault_fields::own<LinkLossFields>(fault).loss;
}

void read(FaultFieldReader& fields, FaultSpec& fault) {
  fault.from = fields.string("from");
  fault.to = fields.string("to");
  const LinkLossFields own{.loss = fields.ratio("loss", {1, 1})};
  fault.fields = FaultFields::of(own);
  if (own.loss.first == 0) fields.fail("loss", "expected a loss above zero: [n, d] with n >= 1");
  fault.until_ms = fields.optional_integer("until_ms", 0, fault_time_ms_max);
}

void write(const FaultSpec& fault, FaultFieldWriter& fields) {
  fields.string("from", fault.from);
  fields.string("to", fault.to);
  if (loss(fault) != std::pair<uint32_t, uint32_t>{1, 1}) fields.ratio("loss", loss(fault));
  if (fault.until_ms) fields.integer("until_ms", *fault.until_ms);
}

void apply(FaultWorld& world, const std::vector<FaultSpec>& faults, std::size_t index) {
  const FaultSpec& fault = faults[index];
  const ProcessId from = world.id_of(fault.from);
  const ProcessId to = world.id_of(fault.to);
  // The link's loss before the window, read when it begins, restored when it ends.
  auto before = std::make_shared<std::pair<uint32_t, uint32_t>>(0, 1);
  world.simulator().schedule_action(
      Instant::from_ms(fault.at_ms), [&world, from, to, fault, before] {
        Network& network = world.simulator().network();
        *before = network.link_loss(from, to);
        network.set_link_loss(from, to, loss(fault).first, loss(fault).second);
        world.record_fault(from, fault);
      });
  if (!fault.until_ms) return;
  world.simulator().schedule_action(Instant::from_ms(*fault.until_ms), [&world, from, to, before] {
    world.simulator().network().set_link_loss(from, to, before->first, before->second);
  });
}

std::optional<std::string> story(const FaultSpec& fault) {
  const bool every = loss(fault).first == loss(fault).second;
  return "loses " +
         (every ? std::string("every message")
                : std::to_string(loss(fault).first) + " in " + std::to_string(loss(fault).second) +
                      " messages") +
         " to " + fault.to +
         (fault.until_ms ? " until " + std::to_string(*fault.until_ms) + " ms" : std::string());
}

}  // namespace

// Declared extern first so the constant has external linkage: the registry that the build
// generates from this folder names it as <file name>_fault.
extern const FaultKindDescriptor link_loss_fault;
const FaultKindDescriptor link_loss_fault{
    .name = "link_loss",
    .help = "one link (from -> to) loses each message with probability loss until until_ms",
    .read = read,
    .write = write,
    .apply = apply,
    .story = story,
    .shorter = fault_fields::shorter_until,
    .real_mode_refusal = "link loss windows cannot be staged for real yet",
    .doc_fields = "`from`, `to`, `loss` [n, d] ([1, 1]), `until_ms` (optional)",
    .doc_effect =
        "the link from -> to loses each message sent on it with probability n/d until `until_ms` "
        "(or the end), then gets its own `loss` back; messages in flight still arrive",
};

}  // namespace redlock_sim
