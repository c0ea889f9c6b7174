// The fault-kind registry (sim/faults/fault_kind.hpp): one descriptor per kind, in FaultKind
// order, each complete, so that the parser, the writer, the runner, the shrinker, explore and
// `list` can iterate it instead of switching on the kind.
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "sim/faults/fault_kind.hpp"

namespace redlock_sim {
namespace {

// Every kind's descriptor sits at its enum value, under the name scenario files use.
TEST(FaultKinds, TheRegistryListsEveryKindInEnumOrderUnderItsName) {
  const std::vector<const FaultKindDescriptor*>& kinds = fault_kinds();
  ASSERT_FALSE(kinds.empty());
  std::set<std::string> names;
  for (std::size_t i = 0; i < kinds.size(); ++i) {
    EXPECT_EQ(static_cast<std::size_t>(kinds[i]->kind), i);
    EXPECT_EQ(std::string(kinds[i]->name), fault_kind_name(kinds[i]->kind));
    EXPECT_EQ(find_fault_kind(kinds[i]->name), kinds[i]);
    EXPECT_EQ(&fault_kind(kinds[i]->kind), kinds[i]);
    names.insert(kinds[i]->name);
  }
  EXPECT_EQ(names.size(), kinds.size());  // no two kinds share a name
  EXPECT_EQ(find_fault_kind("no_such_fault"), nullptr);
  // The enum's last value has a descriptor: a kind added to the enum alone fails here.
  EXPECT_EQ(std::string(fault_kind_name(static_cast<FaultKind>(kinds.size()))), "unknown");
}

// A descriptor leaves no part out: reading, writing, applying, telling, shrinking and a line
// for `list`.
TEST(FaultKinds, EveryDescriptorIsComplete) {
  for (const FaultKindDescriptor* kind : fault_kinds()) {
    SCOPED_TRACE(kind->name);
    EXPECT_NE(kind->help, nullptr);
    EXPECT_GT(std::string(kind->help).size(), 0U);
    EXPECT_NE(kind->read, nullptr);
    EXPECT_NE(kind->write, nullptr);
    EXPECT_NE(kind->apply, nullptr);
    EXPECT_NE(kind->story, nullptr);
    EXPECT_NE(kind->shorter, nullptr);
  }
}

// Exploration classes are named once per kind: a node fault and a client fault of the same kind
// fall into different classes, and a kind with a class for any target has no per-target one.
TEST(FaultKinds, ExplorationClassesAreEitherPerTargetOrForAnyTarget) {
  for (const FaultKindDescriptor* kind : fault_kinds()) {
    SCOPED_TRACE(kind->name);
    if (kind->any_target_class != nullptr) {
      EXPECT_EQ(kind->node_class, nullptr);
      EXPECT_EQ(kind->client_class, nullptr);
    }
    if (kind->node_class != nullptr && kind->client_class != nullptr) {
      EXPECT_NE(std::string(kind->node_class), std::string(kind->client_class));
    }
  }
}

// The shrinker's reductions of a kind's own numbers: halved toward zero, never to "none".
TEST(FaultKinds, ShorterVariantsHalveTheKindsOwnNumbers) {
  FaultSpec step{.kind = FaultKind::clock_step, .at_ms = 10, .target = "N1", .delta_ms = -9};
  ASSERT_EQ(fault_kind(FaultKind::clock_step).shorter(step).size(), 1U);
  EXPECT_EQ(fault_kind(FaultKind::clock_step).shorter(step)[0].delta_ms, -4);
  step.delta_ms = 1;
  EXPECT_TRUE(fault_kind(FaultKind::clock_step).shorter(step).empty());

  const FaultSpec pause{.kind = FaultKind::pause, .at_ms = 0, .target = "A", .duration_ms = 1};
  EXPECT_TRUE(fault_kind(FaultKind::pause).shorter(pause).empty());  // 1 ms stays 1 ms

  const FaultSpec cut{.kind = FaultKind::partition,
                      .at_ms = 100,
                      .side_a = {"A"},
                      .side_b = {"N1"},
                      .until_ms = 301};
  const std::vector<FaultSpec> shorter = fault_kind(FaultKind::partition).shorter(cut);
  ASSERT_EQ(shorter.size(), 1U);
  EXPECT_EQ(shorter[0].until_ms, 200);
}

}  // namespace
}  // namespace redlock_sim
