// The fault-kind registry (sim/faults/fault_kind.hpp): one descriptor per file of
// sim/faults/kinds/, collected by the build, each complete, so that the parser, the writer, the
// runner, the shrinker, explore, `list`, the reports and real mode can iterate it instead of
// switching on the kind.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <string>

#include "scenarios/parser.hpp"
#include "scenarios/writer.hpp"
#include "sim/faults/fault_kind.hpp"

namespace redlock_sim {
namespace {

// Every kind is found under the name scenario files use, once, in name order (the build lists
// the kinds' files, sorted).
TEST(FaultKinds, TheRegistryListsEveryKindOnceByName) {
  const std::vector<const FaultKindDescriptor*>& kinds = fault_kinds();
  ASSERT_FALSE(kinds.empty());
  std::set<std::string> names;
  for (const FaultKindDescriptor* kind : kinds) {
    EXPECT_EQ(find_fault_kind(kind->name), kind);
    EXPECT_EQ(&fault_kind(kind->name), kind);
    names.insert(kind->name);
  }
  EXPECT_EQ(names.size(), kinds.size());  // no two kinds share a name
  EXPECT_TRUE(std::is_sorted(kinds.begin(), kinds.end(),
                             [](const FaultKindDescriptor* a, const FaultKindDescriptor* b) {
                               return std::string(a->name) < b->name;
                             }));
  EXPECT_EQ(find_fault_kind("no_such_fault"), nullptr);
  // fault_kind asks for a kind that exists: a name none has stops the program, naming it.
  EXPECT_DEATH(fault_kind("no_such_fault"), "name = 'no_such_fault'");
  EXPECT_DEATH(fault_kind(""), "name = ''");
  EXPECT_STREQ(fault_kind("pause").name, "pause");
  // The kinds the scenario files of this repository use are all there.
  for (const char* name :
       {"clock_offset", "clock_rate", "clock_slew", "clock_step", "crash", "heal", "hold_message",
        "link_loss", "partition", "pause", "power_loss", "restart", "resume", "shutdown"}) {
    EXPECT_NE(find_fault_kind(name), nullptr) << name;
  }
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
    // Real mode either stages it or says why not.
    EXPECT_TRUE((kind->stage == nullptr) != (kind->real_mode_refusal == nullptr));
    // A kind with an exploration class draws its faults.
    if (kind->node_class || kind->client_class || kind->any_target_class) {
      EXPECT_NE(kind->draw, nullptr);
    }
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
  const auto step = [](int64_t delta_ms) {
    return parse_fault_text(R"({"kind": "clock_step", "at_ms": 10, "target": "N1", "delta_ms": )" +
                                std::to_string(delta_ms) + "}",
                            "step");
  };
  ASSERT_EQ(fault_kind("clock_step").shorter(step(-9)).size(), 1U);
  EXPECT_EQ(write_fault(fault_kind("clock_step").shorter(step(-9))[0]), write_fault(step(-4)));
  EXPECT_TRUE(fault_kind("clock_step").shorter(step(1)).empty());

  const FaultSpec pause{.kind = "pause", .at_ms = 0, .target = "A", .duration_ms = 1};
  EXPECT_TRUE(fault_kind("pause").shorter(pause).empty());  // 1 ms stays 1 ms

  const FaultSpec cut{
      .kind = "partition", .at_ms = 100, .side_a = {"A"}, .side_b = {"N1"}, .until_ms = 301};
  const std::vector<FaultSpec> shorter = fault_kind("partition").shorter(cut);
  ASSERT_EQ(shorter.size(), 1U);
  EXPECT_EQ(shorter[0].until_ms, 200);
}

}  // namespace
}  // namespace redlock_sim
