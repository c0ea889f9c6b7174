// The partition/heal pairing rule, in one place (sim/faults/pairing.hpp): a heal ends the latest
// partition listed before it with the same name.
#include <gtest/gtest.h>

#include "sim/faults/pairing.hpp"

namespace redlock_sim {
namespace {

FaultSpec partition(const std::string& name, int64_t at_ms) {
  return FaultSpec{
      .kind = "partition", .at_ms = at_ms, .name = name, .side_a = {"A"}, .side_b = {"N1"}};
}

FaultSpec heal(const std::string& name, int64_t at_ms) {
  return FaultSpec{.kind = "heal", .at_ms = at_ms, .name = name};
}

// Two partitions share a name: each heal ends the one listed last before it.
TEST(FaultPairing, AHealEndsTheLatestEarlierPartitionOfItsName) {
  const std::vector<FaultSpec> faults = {partition("cut", 0), heal("cut", 100),
                                         partition("cut", 200), heal("cut", 300),
                                         heal("other", 400)};
  EXPECT_EQ(healed_partition(faults, 1), 0U);
  EXPECT_EQ(healed_partition(faults, 3), 2U);
  EXPECT_FALSE(healed_partition(faults, 4));  // no partition of that name
  EXPECT_FALSE(healed_partition(faults, 0));  // not a heal
  // A heal listed before its partition ends nothing (the parser refuses it).
  EXPECT_FALSE(healed_partition({heal("cut", 0), partition("cut", 0)}, 0));
}

// Removing a partition takes its own heals along and leaves the other partition's.
TEST(FaultPairing, RemovingAPartitionRemovesOnlyItsHeals) {
  std::vector<FaultSpec> faults = {partition("cut", 0), heal("cut", 100), partition("cut", 200),
                                   heal("cut", 300)};
  remove_fault(faults, 2);
  ASSERT_EQ(faults.size(), 2U);
  EXPECT_EQ(faults[0].kind, "partition");
  EXPECT_EQ(faults[1].at_ms, 100);
}

// After a reduction emptied a partition away, its heal is dropped too.
TEST(FaultPairing, OrphanHealsAreDropped) {
  std::vector<FaultSpec> faults = {heal("cut", 100), partition("cut", 200), heal("cut", 300)};
  drop_orphan_heals(faults);
  ASSERT_EQ(faults.size(), 2U);
  EXPECT_EQ(faults[0].kind, "partition");
  EXPECT_EQ(faults[1].at_ms, 300);
}

}  // namespace
}  // namespace redlock_sim
