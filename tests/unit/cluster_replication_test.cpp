// Unit tests of replication (docs/catalogue.md: F4, F5, F7, F10, F11
// and F12): the stream over the network, expiry on replicas, TTL propagation by version, WAIT,
// min-replicas-to-write, gap detection with partial resync, a restarted empty master wiping its
// replica, ROLE and INFO.
#include <gtest/gtest.h>

#include "tests/unit/cluster_world.hpp"

namespace redlock_sim {
namespace {

using namespace cluster_test;

std::vector<NodeSpec> pair_with_replica(std::string version = "7.0") {
  NodeSpec master = master_spec("M");
  NodeSpec replica = replica_spec("R", "M");
  master.redis_version = version;
  replica.redis_version = version;
  return {master, replica};
}

// Item 4: a replica keeps an expired key until the master's DEL arrives, but its reads return
// nil as soon as its own clock passes the expiry.
TEST(ClusterReplication, ReplicaReadsExpiredKeyAsMissingUntilMasterDel) {
  ClusterWorld world(pair_with_replica());
  world.send_at(0, "M", make_command("SET", "k", "v", "PX", "100"));  // when = epoch + 101
  auto read = world.send_at(150, "R", make_command("GET", "k"));
  std::size_t kept = 0;
  world.at(150, [&] { kept = world.node("R").engine().key_count(); });
  world.run_until(400);
  EXPECT_EQ(kept, 1u);
  EXPECT_TRUE(reply_of(read).is_nil());
  EXPECT_EQ(world.node("R").engine().key_count(), 0u);  // the master's DEL arrived
}

// Item 6: 7.0 replicates TTLs as absolute times, so a replica with a clock 5 s ahead stores the
// master's expiry; 6.2 sends the relative form and the replica computes it on its own clock.
TEST(ClusterReplication, TtlTravelsAbsoluteIn70AndRelativeIn62) {
  for (const auto& [version, expected] :
       {std::pair<std::string, int64_t>{"7.0", epoch_ms + 10'001},
        std::pair<std::string, int64_t>{"6.2", epoch_ms + 5'000 + 2 + 10'000}}) {
    std::vector<NodeSpec> nodes = pair_with_replica(version);
    nodes[1].clock.offset_ms = 5'000;
    ClusterWorld world(nodes);
    world.send_at(0, "M", make_command("SET", "k", "v", "PX", "10000"));
    world.run_until(10);
    const Value* value = world.node("R").engine().peek("k");
    ASSERT_NE(value, nullptr) << version;
    EXPECT_EQ(value->expire_at_ms, expected) << version;
  }
}

// Item 5: once promoted, a replica expires keys with its own clock (here 20 s behind).
TEST(ClusterReplication, PromotedReplicaExpiresWithItsOwnClock) {
  std::vector<NodeSpec> nodes = pair_with_replica();
  nodes[1].clock.offset_ms = -20'000;
  ClusterWorld world(nodes);
  world.send_at(0, "M", make_command("SET", "k", "v", "PX", "10000"));  // when = epoch + 10 001
  world.crash_at(100, "M", StopKind::kill);
  auto promote = world.send_at(1000, "R", make_command("REPLICAOF", "NO", "ONE"));
  auto still = world.send_at(12'000, "R", make_command("GET", "k"));
  auto gone = world.send_at(31'000, "R", make_command("GET", "k"));
  world.run_until(31'500);
  EXPECT_TRUE(reply_of(promote).is_ok());
  EXPECT_EQ(reply_of(still), Reply::bulk("v"));
  EXPECT_TRUE(reply_of(gone).is_nil());
  EXPECT_EQ(world.node("R").engine().key_count(), 0u);
  EXPECT_TRUE(world.node("R").is_master());
}

// Item 10: WAIT returns the number of replicas whose acknowledged offset reaches the client's
// last write; it asks for acks (GETACK) and otherwise returns at its timeout.
TEST(ClusterReplication, WaitCountsReplicasThatAckedTheClientsWrite) {
  ClusterWorld world({master_spec("M"), replica_spec("R1", "M"), replica_spec("R2", "M")});
  world.at(0, [&] {
    world.simulator.network().add_partition(
        {.side_a = {world.id("M")}, .side_b = {world.id("R2")}});
  });
  auto first =
      world.send_at(10, "M", {make_command("SET", "k", "v"), make_command("WAIT", "1", "100")});
  auto second =
      world.send_at(1000, "M", {make_command("SET", "k", "w"), make_command("WAIT", "2", "500")});
  auto on_replica = world.send_at(2000, "R1", make_command("WAIT", "1", "0"));
  world.run_until(3000);
  ASSERT_EQ(first->size(), 2u);
  EXPECT_EQ(reply_of(first, 1), Reply::integer_reply(1));
  EXPECT_LE(first->at(1).at, Instant::from_ms(20));  // acked on GETACK, not at the timeout
  ASSERT_EQ(second->size(), 2u);
  EXPECT_EQ(reply_of(second, 1), Reply::integer_reply(1));
  EXPECT_EQ(second->at(1).at, Instant::from_ms(1000 + 2 + 1 + 500 + 1));
  EXPECT_TRUE(reply_of(on_replica).is_error());
}

// A WAIT whose timeout in ms is past what a run's nanosecond clock holds (up to LLONG_MAX, which
// Redis accepts) waits like one of 0: it blocks, as Redis 7.0.15 does, with no timer that would
// overflow and fire early; a later ack still ends it.
TEST(ClusterReplication, WaitWithATimeoutNoRunReachesBlocksUntilAcked) {
  ClusterWorld world({master_spec("M"), replica_spec("R", "M")}, {}, {"a", "b"});
  world.at(500, [&] {
    const std::size_t cut = world.simulator.network().add_partition(
        {.side_a = {world.id("M")}, .side_b = {world.id("R")}});
    world.simulator.network().heal(cut, Instant::from_ms(5000));
  });
  auto blocked = world.send_at(
      1000, "M", {make_command("SET", "k", "v"), make_command("WAIT", "1", "9223372036854775807")},
      0, /*timeout_ms=*/60'000);
  // Its nanoseconds fit in 64 bits, but not once added to now.
  auto large = world.send_at(
      1000, "M", {make_command("SET", "j", "w"), make_command("WAIT", "1", "9223372036854")}, 1,
      /*timeout_ms=*/60'000);
  world.run_until(4000);
  EXPECT_EQ(blocked->size(), 1u);  // the SET's reply; the WAIT blocks
  EXPECT_EQ(large->size(), 1u);
  world.run_until(8000);
  for (const auto& answers : {blocked, large}) {
    ASSERT_EQ(answers->size(), 2u);
    EXPECT_EQ(reply_of(answers, 1), Reply::integer_reply(1));
    EXPECT_GT(answers->at(1).at, Instant::from_ms(5000));
  }
}

// WAIT counts from each client's own last write (Redis's c->woff, kept by client process id):
// client b's write is not acked behind a cut, while a (an id below b's) and c (above it) wrote
// nothing, so every replica has acked what they wrote and their WAITs return at once.
TEST(ClusterReplication, WaitOfAClientThatNeverWroteCountsEveryReplica) {
  ClusterWorld world({master_spec("M"), replica_spec("R", "M")}, {}, {"a", "b", "c"});
  world.at(500, [&] {
    world.simulator.network().add_partition({.side_a = {world.id("M")}, .side_b = {world.id("R")}});
  });
  auto b = world.send_at(1000, "M",
                         {make_command("SET", "k", "v"), make_command("WAIT", "1", "100")}, 1);
  auto a = world.send_at(1010, "M", {make_command("WAIT", "1", "100")}, 0);
  auto c = world.send_at(1010, "M", {make_command("WAIT", "1", "100")}, 2);
  world.run_until(2000);
  ASSERT_EQ(b->size(), 2u);
  EXPECT_EQ(reply_of(b, 1), Reply::integer_reply(0));
  ASSERT_EQ(a->size(), 1u);
  EXPECT_EQ(reply_of(a), Reply::integer_reply(1));
  EXPECT_LT(a->at(0).at, Instant::from_ms(1100));  // at once, not at the timeout
  ASSERT_EQ(c->size(), 1u);
  EXPECT_EQ(reply_of(c), Reply::integer_reply(1));
  EXPECT_LT(c->at(0).at, Instant::from_ms(1100));
}

// Item 11 and F12: with min-replicas-to-write 1 and max-lag 10 an isolated master refuses writes
// (also a script's) with NOREPLICAS after about 10 s, and accepts again once the replica acks.
TEST(ClusterReplication, MinReplicasRefusesWritesOfIsolatedMaster) {
  std::vector<NodeSpec> nodes = pair_with_replica();
  nodes[0].min_replicas_to_write = 1;
  nodes[0].min_replicas_max_lag_s = 10;
  ClusterWorld world(nodes);
  world.at(0, [&] {
    const std::size_t cut = world.simulator.network().add_partition(
        {.side_a = {world.id("M")}, .side_b = {world.id("R")}});
    world.at(20'000, [&world, cut] { world.simulator.network().heal(cut, world.simulator.now()); });
  });
  auto before = world.send_at(10'900, "M", make_command("SET", "a", "1"));
  auto after = world.send_at(11'100, "M", make_command("SET", "b", "1"));
  auto script = world.send_at(
      11'200, "M", make_command("EVAL", "return redis.call('set', KEYS[1], 'x')", "1", "c"));
  auto read = world.send_at(11'300, "M", make_command("GET", "a"));
  auto healed = world.send_at(22'500, "M", make_command("SET", "d", "1"));
  world.run_until(23'000);
  EXPECT_TRUE(reply_of(before).is_ok());
  EXPECT_EQ(reply_of(after), Reply::error("NOREPLICAS Not enough good replicas to write."));
  EXPECT_TRUE(reply_of(script).is_error());
  EXPECT_NE(reply_of(script).text.find("NOREPLICAS Not enough good replicas to write."),
            std::string::npos);
  EXPECT_EQ(reply_of(read), Reply::bulk("1"));
  EXPECT_TRUE(reply_of(healed).is_ok());
}

// A cut that began before the run counts for min-replicas-to-write as the same cut at zero that
// began then: the replica's last ACK was at -5500 ms, in Redis's whole seconds -6, so with
// max-lag 10 the master refuses writes from 5000 ms (a second earlier than truncating -5.5 s
// toward zero would say) and accepts at 4900 ms.
TEST(ClusterReplication, MinReplicasCountsACutBeforeTheRunFromItsStart) {
  std::vector<NodeSpec> nodes = pair_with_replica();
  nodes[0].min_replicas_to_write = 1;
  nodes[0].min_replicas_max_lag_s = 10;
  ClusterWorld world(nodes);
  world.cluster.set_cut_before_run(world.id("R"),
                                   LinkCutBeforeRun{.from_master = Instant::from_ms(-5'500),
                                                    .to_master = Instant::from_ms(-5'500)});
  world.at(0, [&] {
    world.simulator.network().add_partition({.side_a = {world.id("M")}, .side_b = {world.id("R")}});
  });
  auto before = world.send_at(4'900, "M", make_command("SET", "a", "1"));
  auto after = world.send_at(5'000, "M", make_command("SET", "b", "1"));
  world.run_until(6'000);
  EXPECT_TRUE(reply_of(before).is_ok()) << reply_of(before).text;
  EXPECT_EQ(reply_of(after), Reply::error("NOREPLICAS Not enough good replicas to write."));
}

// A partition that drops stream messages leaves a gap; the replica notices it at the next
// heartbeat and continues from the master's backlog (a partial resync, no full one).
TEST(ClusterReplication, DroppedStreamIsRepairedByPartialResync) {
  ClusterWorld world(pair_with_replica());
  world.at(0, [&] {
    world.simulator.network().add_partition({.side_a = {world.id("M")},
                                             .side_b = {world.id("R")},
                                             .one_way = true,
                                             .start = Instant::from_ms(100),
                                             .end = Instant::from_ms(500)});
  });
  world.send_at(200, "M", make_command("SET", "lost", "1"));
  world.send_at(600, "M", make_command("SET", "after", "1"));
  world.run_until(2000);
  ClusterNode& replica = world.node("R");
  EXPECT_NE(replica.engine().peek("lost"), nullptr);
  EXPECT_NE(replica.engine().peek("after"), nullptr);
  EXPECT_EQ(replica.replication_offset(), world.node("M").replication_offset());
  EXPECT_EQ(replica.partial_resyncs(), 1u);
  EXPECT_EQ(replica.full_resyncs(), 0u);
}

// Item 13 and F10: a master without persistence restarts empty and its replica, resyncing from
// it, is wiped too: once the full resync's transfer starts, repl-diskless-sync-delay (5 s) after
// the replica asked (it asks at its next once-a-second cron after the restart).
TEST(ClusterReplication, RestartedEmptyMasterWipesItsReplica) {
  ClusterWorld world(pair_with_replica());
  world.send_at(0, "M", make_command("SET", "lock", "A"));
  world.crash_at(1000, "M", StopKind::kill);
  world.restart_at(1500, "M");
  std::size_t replica_keys_while_down = 0;
  std::size_t replica_keys_during_delay = 0;
  world.at(1400, [&] { replica_keys_while_down = world.node("R").engine().key_count(); });
  world.at(6400, [&] { replica_keys_during_delay = world.node("R").engine().key_count(); });
  world.run_until(9000);
  EXPECT_EQ(replica_keys_while_down, 1u);
  EXPECT_EQ(replica_keys_during_delay, 1u);
  EXPECT_EQ(world.node("R").engine().key_count(), 0u);
  EXPECT_EQ(world.node("R").full_resyncs(), 1u);
  EXPECT_TRUE(world.node("R").master_link_up());
}

// ROLE and INFO replication report the real state: offsets acked every second, link status.
TEST(ClusterReplication, RoleAndInfoReflectState) {
  ClusterWorld world(pair_with_replica());
  world.send_at(0, "M", make_command("SET", "k", "v"));
  auto master_role = world.send_at(1500, "M", make_command("ROLE"));
  auto replica_role = world.send_at(1500, "R", make_command("ROLE"));
  world.crash_at(2000, "M", StopKind::kill);
  auto info = world.send_at(4100, "R", make_command("INFO", "replication"));
  world.run_until(5000);
  const int64_t offset = world.node("R").replication_offset();
  EXPECT_GT(offset, 0);
  EXPECT_EQ(reply_of(master_role),
            Reply::array({Reply::bulk("master"), Reply::integer_reply(offset),
                          Reply::array({Reply::array({Reply::bulk("R"), Reply::bulk("6379"),
                                                      Reply::bulk(std::to_string(offset))})})}));
  EXPECT_EQ(reply_of(replica_role),
            Reply::array({Reply::bulk("slave"), Reply::bulk("M"), Reply::integer_reply(6379),
                          Reply::bulk("connected"), Reply::integer_reply(offset)}));
  const std::string text = reply_of(info).text;
  EXPECT_NE(text.find("role:slave\r\n"), std::string::npos) << text;
  EXPECT_NE(text.find("master_link_status:down\r\n"), std::string::npos) << text;
  EXPECT_NE(text.find("master_link_down_since_seconds:2\r\n"), std::string::npos) << text;
}

}  // namespace
}  // namespace redlock_sim
