// The key tracker: what each node held, rebuilt from the writes it propagated (SET .. PXAT,
// PEXPIREAT, PERSIST, DEL, the structure commands that create a key), crashes and reloads.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "sim/kernel/server_process.hpp"
#include "sim/runner/key_tracker.hpp"

namespace redlock_sim {
namespace {

Instant ms(int64_t v) {
  return Instant::from_ms(v);
}

struct Tracked {
  Simulator simulator{1};
  ProcessId n1 = simulator.add_process<ServerProcess>("N1").id();
  ProcessId n2 = simulator.add_process<ServerProcess>("N2").id();
  KeyTracker tracker;
  // An absolute expiry `at` ms after the run's start, on the nodes' wall clocks (which start
  // at the simulator's epoch, not at zero).
  std::string pxat(int64_t at) const {
    return std::to_string(simulator.process(n1).clock().wall_at(ms(at)).ms_floor());
  }

  // (node, key, value, start ms, end ms, reason), in the order lifetimes() gives them.
  std::vector<std::string> pieces(int64_t run_end_ms) const {
    std::vector<std::string> out;
    for (const KeyLifetime& k : tracker.lifetimes(simulator, ms(run_end_ms))) {
      out.push_back(std::to_string(k.node) + " " + k.key + "=" + k.value + " [" +
                    std::to_string(k.start.ms_floor()) + ", " + std::to_string(k.end.ms_floor()) +
                    ") " + k.end_reason);
    }
    return out;
  }
};

TEST(KeyTracker, WritesOpenAndClosePiecesInAnyCase) {
  Tracked t;
  t.tracker.on_effects(t.n1, {{"SET", "a", "v1", "PXAT", t.pxat(5000)}}, ms(10));
  t.tracker.on_effects(t.n1, {{"set", "a", "v2"}}, ms(20));               // overwritten, no TTL
  t.tracker.on_effects(t.n1, {{"pexpireat", "a", t.pxat(900)}}, ms(30));  // extended
  t.tracker.on_effects(t.n1, {{"PERSIST", "a"}}, ms(40));                 // persisted
  t.tracker.on_effects(t.n1, {{"SET", "a", "v3", "KEEPTTL"}}, ms(50));    // keeps no TTL
  t.tracker.on_effects(t.n1, {{"Del", "a", "missing"}}, ms(60));          // deleted
  t.tracker.on_effects(t.n1, {{"HSET", "h", "f", "1"}, {"incr", "h"}}, ms(70));  // one piece
  t.tracker.on_effects(t.n1, {{"PEXPIREAT", "nothing", "1"}, {"PERSIST", "none"}}, ms(80));
  EXPECT_EQ(t.pieces(1000), (std::vector<std::string>{
                                "0 a=v1 [10, 20) overwritten",
                                "0 a=v2 [20, 30) extended",
                                "0 a=v2 [30, 40) persisted",
                                "0 a=v2 [40, 50) overwritten",
                                "0 a=v3 [50, 60) deleted",
                                "0 h= [70, 1000) run_end",
                            }));
  EXPECT_EQ(t.tracker.kept(), 6u);
}

TEST(KeyTracker, ExpiryEndsAPieceOnTheNodesClockAndKeepTtlKeepsIt) {
  Tracked t;
  t.tracker.on_effects(t.n1, {{"SET", "a", "v1", "PXAT", t.pxat(500)}}, ms(10));
  t.tracker.on_effects(t.n1, {{"SET", "a", "v2", "KEEPTTL"}}, ms(20));
  const std::vector<KeyLifetime> keys = t.tracker.lifetimes(t.simulator, ms(1000));
  ASSERT_EQ(keys.size(), 2u);
  EXPECT_EQ(keys[1].value, "v2");
  EXPECT_EQ(std::to_string(*keys[1].expire_at_ms), t.pxat(500));
  EXPECT_EQ(keys[1].end_reason, "expired");
  EXPECT_EQ(keys[1].end, ms(500) + Duration::from_ns(1'000'000));  // missing once past 500
}

TEST(KeyTracker, CrashesFlushesAndReloadsCloseOnlyTheirNodesKeys) {
  Tracked t;
  t.tracker.on_effects(t.n1, {{"SET", "b", "1"}, {"SET", "a", "2"}}, ms(10));
  t.tracker.on_effects(t.n2, {{"SET", "a", "3"}}, ms(10));
  t.tracker.on_crash(t.n1, ms(100));
  t.tracker.on_loaded(t.n1, "a", "2", std::nullopt, ms(200));
  t.tracker.on_loaded(t.n1, "a", "4", std::nullopt, ms(300));  // a second reload overwrites
  t.tracker.on_effects(t.n2, {{"SET", "c", "5"}, {"FLUSHALL"}, {"SET", "d", "6"}}, ms(400));
  EXPECT_EQ(t.pieces(1000), (std::vector<std::string>{
                                "0 a=2 [10, 100) crashed",
                                "0 a=2 [200, 300) overwritten",
                                "0 a=4 [300, 1000) run_end",
                                "0 b=1 [10, 100) crashed",
                                "1 a=3 [10, 400) crashed",
                                "1 c=5 [400, 400) crashed",
                                "1 d=6 [400, 1000) run_end",
                            }));
  EXPECT_EQ(t.tracker.kept(), 7u);
}

// A node's effects as it propagates them: the compact lock writes (SET .. PXAT, DEL key) read
// as the argvs they stand for without being written out, replicas-only effects skipped (the
// AOF's absolute form says what the node holds), any other command read as its argv.
TEST(KeyTracker, EffectsReadAsTheirArgvsCompactOnesLeftCompact) {
  Tracked from_argvs;
  Tracked from_effects;
  const std::string at = from_argvs.pxat(500);
  from_argvs.tracker.on_effects(from_argvs.n1,
                                {{"SET", "a", "v1", "PXAT", at},
                                 {"PERSIST", "a"},
                                 {"DEL", "a"},
                                 {"INCR", "n"},
                                 {"SET", "b", "v2", "PXAT", at}},
                                ms(10));
  std::vector<Propagated> effects;
  effects.push_back({PropagatedCommand::set_pxat("a", "v1", std::stoll(at))});
  effects.push_back({PropagatedCommand::pair("DEL", "z"), PropagationTarget::replicas});
  effects.push_back({Command{"PERSIST", "a"}});
  effects.push_back({PropagatedCommand::pair("DEL", "a")});
  effects.push_back({PropagatedCommand::pair("INCR", "n")});
  effects.push_back({PropagatedCommand::set_pxat("b", "v2", std::stoll(at))});
  effects.push_back({PropagatedCommand::set_pxat("b", "v3", 1), PropagationTarget::replicas});
  from_effects.tracker.on_effects(from_effects.n1, effects, ms(10));
  EXPECT_EQ(from_effects.pieces(1000), from_argvs.pieces(1000));
  EXPECT_EQ(from_effects.tracker.kept(), from_argvs.tracker.kept());
  ASSERT_TRUE(effects[0].command.compact() && effects[3].command.compact());
  EXPECT_TRUE(effects[5].command.compact());
}

}  // namespace
}  // namespace redlock_sim
