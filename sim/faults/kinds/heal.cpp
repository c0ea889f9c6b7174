// heal: ends the latest earlier partition with the same name (sim/faults/pairing.hpp).
#include "sim/faults/fault_kind.hpp"
#include "sim/faults/pairing.hpp"

namespace redlock_sim {

namespace {

void read(FaultFieldReader& fields, FaultSpec& fault) {
  fault.name = fields.string("name");
}

void write(const FaultSpec& fault, FaultFieldWriter& fields) {
  fields.string("name", fault.name);
}

void apply(FaultWorld& world, const std::vector<FaultSpec>& faults, std::size_t index) {
  const FaultSpec& fault = faults[index];
  const std::size_t partition = healed_partition(faults, index).value();
  world.simulator().schedule_action(Instant::from_ms(fault.at_ms), [&world, partition, fault] {
    world.heal_partition(partition, fault);
  });
}

// Told by the partition's end (its event), not on its own.
std::optional<std::string> story(const FaultSpec&) {
  return std::nullopt;
}

std::optional<FaultCheckError> check(const std::vector<FaultSpec>& faults, std::size_t index) {
  if (healed_partition(faults, index)) return std::nullopt;
  return FaultCheckError{"name", "no earlier partition is named \"" + faults[index].name + "\""};
}

void stage(RealFaultStage& stage, const std::vector<FaultSpec>& faults, std::size_t index) {
  const std::size_t partition = healed_partition(faults, index).value();
  stage.when(faults[index], [&stage, partition, fault = faults[index]] {
    stage.heal_partition(partition, fault);
  });
}

}  // namespace

// Declared extern first so the constant has external linkage: the registry that the build
// generates from this folder names it as <file name>_fault.
extern const FaultKindDescriptor heal_fault;
const FaultKindDescriptor heal_fault{
    .name = "heal",
    .help = "ends a named partition",
    .read = read,
    .write = write,
    .apply = apply,
    .story = story,
    .shorter = fault_fields::no_shorter,
    .check = check,
    .stage = stage,
    .doc_fields = "`name`",
    .doc_effect = "ends a named partition",
};

}  // namespace redlock_sim
