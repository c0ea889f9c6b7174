// Files that parse but are not what their author meant get one warning each; the catalogue's
// headline story gets none.
#include <gtest/gtest.h>

#include "scenarios/lint.hpp"
#include "scenarios/parser.hpp"

namespace redlock_sim {
namespace {

Scenario two_clients() {
  Scenario s;
  s.nodes = {NodeSpec{.name = "N1"}, NodeSpec{.name = "N2"}};
  s.clients = {ClientSpec{.name = "A", .profile = "redlock", .nodes = {"N1"}},
               ClientSpec{.name = "B", .profile = "redlock", .nodes = {"N1"}}};
  return s;
}

bool warns(const Scenario& s, const std::string& part) {
  for (const std::string& w : scenario_warnings(s))
    if (w.find(part) != std::string::npos) return true;
  return false;
}

TEST(ScenarioLint, TheHeadlineStoryIsClean) {
  const Scenario s =
      parse_scenario_file(std::string(REDLOCK_SOURCE_DIR) + "/scenarios/kleppmann-clock-jump.json");
  EXPECT_TRUE(scenario_warnings(s).empty());
  EXPECT_TRUE(scenario_warnings(two_clients()).empty());
}

TEST(ScenarioLint, AClientNamingTheMasterDirectlyNeverFollowsTheFailover) {
  Scenario s = two_clients();
  s.nodes[1].role = "replica";
  s.nodes[1].replica_of = "N1";
  s.failover = FailoverSpec{.enabled = true, .master = "N1", .sentinels = {"S1"}, .quorum = 1};
  EXPECT_TRUE(warns(s, "clients.A.nodes names N1 directly"));
  s.clients[0].nodes = {"mymaster"};
  s.clients[1].nodes = {"mymaster"};
  EXPECT_FALSE(warns(s, "directly"));
}

TEST(ScenarioLint, AFaultOnANodeNoLockUses) {
  Scenario s = two_clients();
  s.faults = {FaultSpec{.kind = "crash", .at_ms = 10, .target = "N2"}};
  EXPECT_TRUE(warns(s, "faults[0] (crash) targets node N2, which no client's lock uses"));
  s.faults[0].target = "N1";
  EXPECT_FALSE(warns(s, "no client's lock uses"));
}

TEST(ScenarioLint, AResourceNobodyTouches) {
  Scenario s = two_clients();
  s.resource.enabled = true;
  EXPECT_TRUE(warns(s, "never read or written"));
  s.clients[0].steps = {StepSpec{.kind = StepKind::increment}};
  EXPECT_FALSE(warns(s, "never read or written"));
}

TEST(ScenarioLint, APartitionThatCutsNothing) {
  Scenario s = two_clients();
  s.faults = {FaultSpec{.kind = "partition", .side_a = {"A"}, .side_b = {"N2"}}};
  EXPECT_TRUE(warns(s, "cuts no pair"));
  s.faults[0].side_b = {"N1"};
  EXPECT_FALSE(warns(s, "cuts no pair"));
}

TEST(ScenarioLint, LockNamesThatDiffer) {
  Scenario s = two_clients();
  s.clients[1].lock = "orders";
  EXPECT_TRUE(warns(s, "lock different names ('lock' and 'orders')"));
}

}  // namespace
}  // namespace redlock_sim
