// Unit tests of persistence and restarts (docs/catalogue.md: F8 and F9, the
// catalogue's S10, S13 a/b/c and S14): AOF fsync policies against kill -9 and power loss, RDB
// snapshots, clean shutdown, expired keys on load, and the truncated-transaction rule.
#include <gtest/gtest.h>

#include "tests/unit/cluster_world.hpp"

namespace redlock_sim {
namespace {

using namespace cluster_test;

// One node N3 with the given persistence; a SET NX PX 10000 from the client at t = 0 executes
// at t = 1 (when = epoch + 10 001), as in the catalogue's S13.
struct Restarted {
  ClusterWorld world;
  std::shared_ptr<std::vector<Answer>> set;
  explicit Restarted(PersistenceSpec persistence) : world({master_spec("N3", persistence)}) {
    set = world.send_at(0, "N3", make_command("SET", "lock", "A", "NX", "PX", "10000"));
  }
  std::size_t keys() { return world.node("N3").engine().key_count(); }
};

// S13(a): with appendfsync always the acknowledged SET survives a power loss and replays with
// its absolute expiry, so B's SET NX after the restart is refused.
TEST(ClusterPersistence, AofAlwaysKeepsAcknowledgedSetThroughPowerLoss) {
  Restarted r(aof(AppendFsync::always));
  r.world.crash_at(1000, "N3", StopKind::power_loss);
  r.world.restart_at(1500, "N3");
  auto b = r.world.send_at(2000, "N3", make_command("SET", "lock", "B", "NX", "PX", "10000"));
  auto when = r.world.send_at(2100, "N3", make_command("PEXPIRETIME", "lock"));
  r.world.run_until(3000);
  EXPECT_TRUE(reply_of(r.set).is_ok());
  EXPECT_TRUE(reply_of(b).is_nil());
  EXPECT_EQ(reply_of(when), Reply::integer_reply(epoch_ms + 10'001));
  const StoryLine* restart = r.world.first_line(ClusterEventKind::restarted, "N3");
  ASSERT_NE(restart, nullptr);
  EXPECT_EQ(restart->event.keys_loaded, 1U);
  EXPECT_EQ(restart->event.keys_before_stop, 1U);
  EXPECT_EQ(restart->event.keys_lost, 0U);
  EXPECT_EQ(restart->event.load_source, "aof");
  // The story's sentence is a rendering of those fields.
  EXPECT_EQ(cluster_event_text(restart->event),
            "loaded 1 keys from aof (1 before the stop, 0 lost)");
}

// S13(b): with everysec a power loss at 700, before the first fsync at 1000, loses the key: B's
// SET NX at 2000 succeeds.
TEST(ClusterPersistence, AofEverysecPowerLossBeforeFsyncLosesKey) {
  Restarted r(aof(AppendFsync::everysec));
  r.world.crash_at(700, "N3", StopKind::power_loss);
  r.world.restart_at(1200, "N3");
  auto b = r.world.send_at(2000, "N3", make_command("SET", "lock", "B", "NX", "PX", "10000"));
  r.world.run_until(3000);
  EXPECT_TRUE(reply_of(b).is_ok());
  const ClusterEvent& restart = r.world.first_line(ClusterEventKind::restarted, "N3")->event;
  EXPECT_EQ(restart.load_source, "aof");
  EXPECT_EQ(restart.keys_loaded, 0U);
  EXPECT_EQ(restart.keys_lost, 1U);
}

// S13(c): with everysec a power loss at 1300, after the fsync at 1000, keeps the key.
TEST(ClusterPersistence, AofEverysecPowerLossAfterFsyncKeepsKey) {
  Restarted r(aof(AppendFsync::everysec));
  r.world.crash_at(1300, "N3", StopKind::power_loss);
  r.world.restart_at(1500, "N3");
  auto b = r.world.send_at(2000, "N3", make_command("SET", "lock", "B", "NX", "PX", "10000"));
  r.world.run_until(3000);
  EXPECT_TRUE(reply_of(b).is_nil());
  EXPECT_EQ(r.keys(), 1u);
}

// A kill -9 keeps what was written to the AOF even before any fsync (the OS page cache).
TEST(ClusterPersistence, KillKeepsUnsyncedAofWrites) {
  Restarted r(aof(AppendFsync::everysec));
  r.world.crash_at(700, "N3", StopKind::kill);
  r.world.restart_at(1200, "N3");
  r.world.run_until(1300);
  EXPECT_EQ(r.keys(), 1u);
}

// appendfsync no: the OS flushes every 30 s, so a power loss at 29 s loses the write and one at
// 31 s does not.
TEST(ClusterPersistence, AofNoIsFlushedByTheOsEveryThirtySeconds) {
  for (const auto& [loss_ms, kept] : {std::pair{29'000, 0u}, std::pair{31'000, 1u}}) {
    ClusterWorld world({master_spec("N3", aof(AppendFsync::no))});
    world.send_at(0, "N3", make_command("SET", "k", "v"));
    world.crash_at(loss_ms, "N3", StopKind::power_loss);
    world.restart_at(loss_ms + 100, "N3");
    world.run_until(loss_ms + 200);
    EXPECT_EQ(world.node("N3").engine().key_count(), kept) << "power loss at " << loss_ms;
  }
}

// S10 (item 9, no persistence): a killed node restarts empty and B's SET NX succeeds.
TEST(ClusterPersistence, NoPersistenceRestartsEmpty) {
  Restarted r(PersistenceSpec{});
  r.world.crash_at(1000, "N3", StopKind::kill);
  r.world.restart_at(1500, "N3");
  auto b = r.world.send_at(2000, "N3", make_command("SET", "lock", "B", "NX", "PX", "10000"));
  r.world.run_until(3000);
  EXPECT_TRUE(reply_of(b).is_ok());
  const ClusterEvent& restart = r.world.first_line(ClusterEventKind::restarted, "N3")->event;
  EXPECT_EQ(restart.load_source, "nothing");
  EXPECT_EQ(restart.keys_loaded, 0U);
  EXPECT_EQ(restart.keys_lost, 1U);
}

// S14: fsync always does not help when the wall clock steps +1 h while the node is down: the
// key replays (nothing expires while loading) but is expired at once, so B's SET NX succeeds.
TEST(ClusterPersistence, ClockStepWhileDownExpiresReplayedKey) {
  Restarted r(aof(AppendFsync::always));
  r.world.crash_at(1000, "N3", StopKind::kill);
  r.world.at(1400, [&] {
    r.world.simulator.step_wall_clock(r.world.id("N3"), Duration::from_ms(3'600'000));
  });
  std::size_t keys_after_load = 99;
  r.world.at(1500, [&] {
    r.world.simulator.restart(r.world.id("N3"));
    keys_after_load = r.keys();
  });
  auto b = r.world.send_at(2000, "N3", make_command("SET", "lock", "B", "NX", "PX", "10000"));
  r.world.run_until(3000);
  EXPECT_EQ(keys_after_load, 1u);
  EXPECT_TRUE(reply_of(b).is_ok());
}

// RDB: a kill loses what was written after the last snapshot; a clean shutdown saves one.
TEST(ClusterPersistence, RdbKeepsLastSnapshotAndShutdownSavesOne) {
  const PersistenceSpec rdb{.mode = PersistenceMode::rdb, .rdb_interval_ms = 1000};
  ClusterWorld killed({master_spec("N", rdb)});
  killed.send_at(0, "N", make_command("SET", "early", "1"));
  killed.send_at(1500, "N", make_command("SET", "late", "1"));
  killed.crash_at(1800, "N", StopKind::kill);
  killed.restart_at(1900, "N");
  killed.run_until(1950);
  EXPECT_NE(killed.node("N").engine().peek("early"), nullptr);
  EXPECT_EQ(killed.node("N").engine().peek("late"), nullptr);

  ClusterWorld shut({master_spec("N", rdb)});
  shut.send_at(0, "N", make_command("SET", "early", "1"));
  shut.send_at(1500, "N", make_command("SET", "late", "1"));
  shut.crash_at(1800, "N", StopKind::shutdown);
  shut.restart_at(1900, "N");
  shut.run_until(1950);
  EXPECT_NE(shut.node("N").engine().peek("late"), nullptr);
}

// Item 8: RDB load on a master skips keys whose expiry has passed; a replica keeps them (its
// master will send the DEL).
TEST(ClusterPersistence, RdbLoadSkipsExpiredKeysOnMasterOnly) {
  const PersistenceSpec rdb{.mode = PersistenceMode::rdb, .rdb_interval_ms = 1000};
  NodeSpec master = master_spec("M", rdb);
  NodeSpec replica = replica_spec("R", "M");
  replica.persistence = rdb;
  ClusterWorld world({master, replica});
  world.send_at(0, "M", make_command("SET", "k", "v", "PX", "1500"));  // when = epoch + 1501
  world.crash_at(1200, "M", StopKind::kill);
  world.crash_at(1200, "R", StopKind::kill);
  std::size_t master_keys = 99;
  std::size_t replica_keys = 99;
  world.at(2000, [&] {
    world.simulator.restart(world.id("M"));
    world.simulator.restart(world.id("R"));
    master_keys = world.node("M").engine().key_count();
    replica_keys = world.node("R").engine().key_count();
  });
  world.run_until(2001);
  EXPECT_EQ(master_keys, 0u);
  EXPECT_EQ(replica_keys, 1u);
}

// A trailing MULTI without EXEC (a torn transaction) is discarded on load; complete ones replay.
TEST(ClusterPersistence, TruncatedTrailingTransactionIsDiscarded) {
  RedisEngine engine;
  const std::vector<Command> commands = {
      make_command("SET", "a", "1"), make_command("MULTI"), make_command("SET", "b", "2"),
      make_command("EXEC"),          make_command("MULTI"), make_command("SET", "c", "3"),
  };
  Persistence::replay_aof(engine, {}, commands, Instant::from_ms(epoch_ms));
  EXPECT_NE(engine.peek("a"), nullptr);
  EXPECT_NE(engine.peek("b"), nullptr);
  EXPECT_EQ(engine.peek("c"), nullptr);
  EXPECT_FALSE(engine.replica());
}

}  // namespace
}  // namespace redlock_sim
