// partition: drops messages between two sets of processes (side A to side B only when one_way),
// from at_ms until until_ms or a `heal` that names it.
#include <algorithm>

#include "sim/faults/fault_kind.hpp"

namespace redlock_sim {

namespace {

void read(FaultFieldReader& fields, FaultSpec& fault) {
  fault.name = fields.string("name", "");
  std::vector<std::vector<std::string>> sides =
      fields.name_lists("sides", 2, "expected two sides: [[names...], [names...]]");
  fault.side_a = std::move(sides[0]);
  fault.side_b = std::move(sides[1]);
  fault.one_way = fields.boolean("one_way", false);
  fault.until_ms = fields.optional_integer("until_ms", 0, fault_time_ms_max);
}

void write(const FaultSpec& fault, FaultFieldWriter& fields) {
  if (!fault.name.empty()) fields.string("name", fault.name);
  fields.name_lists("sides", {fault.side_a, fault.side_b});
  if (fault.one_way) fields.boolean("one_way", true);
  if (fault.until_ms) fields.integer("until_ms", *fault.until_ms);
}

void apply(FaultWorld& world, const std::vector<FaultSpec>& faults, std::size_t index) {
  const FaultSpec& fault = faults[index];
  // A cut that began before the run (may_start_before_run) applies at time zero; only the
  // replication links it cuts see its earlier start (the runner backdates their last I/O).
  const Instant at = Instant::from_ms(std::max<int64_t>(fault.at_ms, 0));
  world.add_partition(index, PartitionRule{.side_a = world.ids_of(fault.side_a),
                                           .side_b = world.ids_of(fault.side_b),
                                           .one_way = fault.one_way,
                                           .start = at,
                                           .end = fault.until_ms ? Instant::from_ms(*fault.until_ms)
                                                                 : Instant::max()});
  // The story names the cut, told by the first process of side A, so that a violation's story
  // shows why the clients saw different nodes.
  const ProcessId teller = world.id_of(fault.side_a.front());
  world.simulator().schedule_action(
      at, [&world, teller, fault, index] { world.partition_began(index, teller, fault); });
}

// Shorter cuts: until_ms halved toward at_ms; for a cut that began before the run, its start
// moves toward the run's and its end toward time zero, staying after it (the parser refuses a
// cut before the run that ends by time zero).
std::vector<FaultSpec> shorter(const FaultSpec& fault) {
  if (fault.at_ms >= 0) return fault_fields::shorter_until(fault);
  std::vector<FaultSpec> out;
  FaultSpec later_start = fault;
  later_start.at_ms /= 2;
  out.push_back(later_start);
  if (fault.until_ms && *fault.until_ms > 1) {
    FaultSpec earlier_end = fault;
    earlier_end.until_ms = *fault.until_ms / 2;
    out.push_back(earlier_end);
  }
  return out;
}

std::optional<std::string> story(const FaultSpec& fault) {
  return partition_story_text(fault);
}

void draw(FaultDraw& draw, FaultSpec& fault) {
  const std::vector<std::string> everyone = draw.everyone();
  // A random proper, non-empty subset against the rest.
  while (fault.side_a.empty() || fault.side_a.size() == everyone.size()) {
    fault.side_a.clear();
    for (const std::string& name : everyone) {
      if (draw.chance(1, 2)) fault.side_a.push_back(name);
    }
  }
  for (const std::string& name : everyone) {
    if (std::find(fault.side_a.begin(), fault.side_a.end(), name) == fault.side_a.end()) {
      fault.side_b.push_back(name);
    }
  }
  fault.one_way = draw.chance(1, 4);
  fault.until_ms = fault.at_ms + draw.between(1, draw.bounds().partition_ms_max);
}

// In real mode the proxies drop the cut's messages; a cut that began before the run starts at
// zero (real processes cannot be given an earlier last I/O, so real mode refuses one that cuts a
// replication link).
void stage(RealFaultStage& stage, const std::vector<FaultSpec>& faults, std::size_t index) {
  const FaultSpec& fault = faults[index];
  const int64_t at_ms = std::max<int64_t>(fault.at_ms, 0);
  stage.add_partition(index, PartitionRule{.side_a = stage.ids_of(fault.side_a),
                                           .side_b = stage.ids_of(fault.side_b),
                                           .one_way = fault.one_way,
                                           .start = Instant::from_ms(at_ms),
                                           .end = fault.until_ms ? Instant::from_ms(*fault.until_ms)
                                                                 : Instant::max()});
  if (fault.until_ms) stage.lasts_until(*fault.until_ms);
  const ProcessId teller = stage.id_of(fault.side_a.front());
  stage.when(fault,
             [&stage, teller, fault, index] { stage.partition_began(index, teller, fault); });
}

}  // namespace

// Declared extern first so the constant has external linkage: the registry that the build
// generates from this folder names it as <file name>_fault.
extern const FaultKindDescriptor partition_fault;
const FaultKindDescriptor partition_fault{
    .name = "partition",
    .help = "drops messages between two sets of processes (one-way too)",
    .read = read,
    .write = write,
    .apply = apply,
    .story = story,
    .shorter = shorter,
    .any_target_class = "partition",
    .may_start_before_run = true,
    .cuts_sides = true,
    .draw = draw,
    .stage = stage,
    .doc_fields = "`sides` [[names], [names]], `one_way`, `until_ms`, `name`",
    .doc_effect = "drops messages between the sides (a -> b only when one-way)",
};

}  // namespace redlock_sim
