// Unit tests of the Sentinel-like failover controller (docs/catalogue.md:
// F13, and the catalogue's S15, S16 and S18): SDOWN/ODOWN with quorum, majority authorisation,
// replica ranking and eligibility, +switch-master to clients, and an old master rejoining as a
// replica with its data discarded.
#include <gtest/gtest.h>

#include "tests/unit/cluster_world.hpp"

namespace redlock_sim {
namespace {

using namespace cluster_test;

FailoverSpec three_sentinels(std::string master, int64_t down_after_ms = 5000) {
  return FailoverSpec{.enabled = true,
                      .master_name = "mymaster",
                      .master = std::move(master),
                      .sentinels = {"S1", "S2", "S3"},
                      .quorum = 2,
                      .down_after_ms = down_after_ms,
                      .failover_delay_ms = 1000};
}

// S15: the master is killed before its SET reaches the replica (lag 100 ms); the replica is
// promoted about 1 s after SDOWN (~5 000 ms) and B's SET NX on it succeeds at 6 100.
TEST(ClusterFailover, MasterKilledBeforeReplicationLosesTheLock) {
  ClusterWorld world({master_spec("M"), replica_spec("R", "M")}, three_sentinels("M"), {"A", "B"});
  world.at(0, [&] {
    world.simulator.network().set_link_delay(world.id("M"), world.id("R"),
                                             DelaySpec::fixed(Duration::from_ms(100)));
  });
  auto a = world.send_at(0, "M", {make_command("SET", "lock", "A", "NX", "PX", "30000")}, 0);
  world.crash_at(50, "M", StopKind::kill);
  auto b = world.send_at(6100, "R", {make_command("SET", "lock", "B", "NX", "PX", "30000")}, 1);
  auto asked = world.send_at(6200, "S2",
                             {make_command("SENTINEL", "get-master-addr-by-name", "mymaster")}, 1);
  world.run_until(7000);
  EXPECT_TRUE(reply_of(a).is_ok());
  const auto sdown = world.first(ClusterEventKind::sdown);
  const auto promoted = world.first(ClusterEventKind::promoted, "R");
  ASSERT_TRUE(sdown && promoted);
  EXPECT_GE(*sdown, Instant::from_ms(5000));
  EXPECT_LE(*sdown, Instant::from_ms(5100));
  EXPECT_GE(*promoted, Instant::from_ms(6000));
  EXPECT_LE(*promoted, Instant::from_ms(6100));
  EXPECT_TRUE(reply_of(b).is_ok());
  EXPECT_EQ(reply_of(asked), Reply::array({Reply::bulk("R"), Reply::bulk("6379")}));
  const std::vector<Command>& heard = world.client(1).unsolicited;
  ASSERT_FALSE(heard.empty());
  EXPECT_EQ(heard.front(), make_command("+switch-master", "mymaster", "R"));
}

// Sentinel's SDOWN counts from the oldest unanswered PING (act_ping_time), not from the last
// reply: a master cut off from the sentinels at 500 ms, between the PINGs of 0 and 1000 ms,
// is SDOWN 5000 ms after the PING of 1000 ms. A killed master closes the sentinels' links, and
// their reconnect PING at once starts the count: SDOWN 5000 ms after the kill.
TEST(ClusterFailover, SdownCountsFromTheFirstUnansweredPing) {
  {
    ClusterWorld world({master_spec("M"), replica_spec("R", "M")}, three_sentinels("M"), {});
    world.at(500, [&] {
      world.simulator.network().add_partition(
          {.side_a = {world.id("M")},
           .side_b = {world.id("S1"), world.id("S2"), world.id("S3")},
           .end = Instant::from_ms(60'000)});
    });
    world.run_until(8000);
    const auto sdown = world.first(ClusterEventKind::sdown);
    ASSERT_TRUE(sdown);
    EXPECT_GE(*sdown, Instant::from_ms(6000));
    EXPECT_LE(*sdown, Instant::from_ms(6002));
  }
  {
    ClusterWorld world({master_spec("M"), replica_spec("R", "M")}, three_sentinels("M"), {});
    world.crash_at(500, "M", StopKind::kill);
    world.run_until(8000);
    const auto sdown = world.first(ClusterEventKind::sdown);
    ASSERT_TRUE(sdown);
    EXPECT_GE(*sdown, Instant::from_ms(5500));
    EXPECT_LE(*sdown, Instant::from_ms(5502));
  }
}

// S16: SET then WAIT 1 100 returns 1; the acked replica is promoted and keeps the key with its
// absolute expiry (7.0) or the one it computed itself (6.2), so B's SET NX at 6 100 fails.
TEST(ClusterFailover, WaitAckedReplicaPromotedKeepsTheLock) {
  for (const auto& [version, when] : {std::pair<std::string, int64_t>{"7.0", epoch_ms + 30'001},
                                      std::pair<std::string, int64_t>{"6.2", epoch_ms + 30'002}}) {
    NodeSpec master = master_spec("M");
    NodeSpec replica = replica_spec("R", "M");
    master.redis_version = version;
    replica.redis_version = version;
    ClusterWorld world({master, replica}, three_sentinels("M"), {"A", "B"});
    auto a = world.send_at(
        0, "M",
        {make_command("SET", "lock", "A", "NX", "PX", "30000"), make_command("WAIT", "1", "100")},
        0);
    world.crash_at(50, "M", StopKind::kill);
    auto b = world.send_at(6100, "R", {make_command("SET", "lock", "B", "NX", "PX", "30000")}, 1);
    auto expiry = world.send_at(6200, "R", {make_command("PEXPIRETIME", "lock")}, 1);
    world.run_until(7000);
    ASSERT_EQ(a->size(), 2u) << version;
    EXPECT_EQ(reply_of(a, 1), Reply::integer_reply(1)) << version;
    EXPECT_LE(a->at(1).at, Instant::from_ms(10)) << version;
    EXPECT_TRUE(world.first(ClusterEventKind::promoted, "R")) << version;
    EXPECT_TRUE(reply_of(b).is_nil()) << version;
    EXPECT_EQ(reply_of(expiry), Reply::integer_reply(when)) << version;
  }
}

// S18: the isolated old master keeps granting, the majority side promotes R2 (~6 000 ms) and B
// locks there too; after the heal the old master becomes R2's replica and loses its writes.
TEST(ClusterFailover, IsolatedOldMasterIsDemotedAndWipedAfterHeal) {
  ClusterWorld world({master_spec("M1"), replica_spec("R2", "M1"), replica_spec("R3", "M1")},
                     three_sentinels("M1"), {"A", "B"});
  world.at(0, [&] {
    std::vector<ProcessId> box1 = {world.id("M1"), world.id("S1"), world.client(0).id()};
    std::vector<ProcessId> rest = {world.id("R2"), world.id("R3"), world.id("S2"), world.id("S3"),
                                   world.client(1).id()};
    world.simulator.network().add_partition(
        {.side_a = box1, .side_b = rest, .end = Instant::from_ms(40'000)});
  });
  auto a = world.send_at(100, "M1",
                         {make_command("SET", "lock", "A", "NX", "PX", "30000"),
                          make_command("SET", "acknowledged-write", "1")},
                         0);
  auto b = world.send_at(6100, "R2", {make_command("SET", "lock", "B", "NX", "PX", "30000")}, 1);
  auto r3_role = world.send_at(8000, "R3", {make_command("ROLE")}, 1);
  world.run_until(60'000);  // the old master's full resync waits 5 s (repl-diskless-sync-delay)
  ASSERT_EQ(a->size(), 2u);
  EXPECT_TRUE(reply_of(a, 0).is_ok());
  EXPECT_TRUE(reply_of(a, 1).is_ok());
  const auto promoted = world.first(ClusterEventKind::promoted, "R2");
  ASSERT_TRUE(promoted);
  EXPECT_GE(*promoted, Instant::from_ms(5900));
  EXPECT_LE(*promoted, Instant::from_ms(6200));
  EXPECT_TRUE(reply_of(b).is_ok());  // two holders: MX violated
  EXPECT_EQ(reply_of(r3_role).elements.at(1), Reply::bulk("R2"));
  ClusterNode& old_master = world.node("M1");
  EXPECT_FALSE(old_master.is_master());
  EXPECT_EQ(old_master.master(), world.id("R2"));
  EXPECT_EQ(old_master.engine().peek("acknowledged-write"), nullptr);
  EXPECT_EQ(old_master.full_resyncs(), 1u);
  EXPECT_EQ(world.sentinel("S1").current_master(), world.id("R2"));
  EXPECT_TRUE(world.first(ClusterEventKind::convert_to_slave));
}

// F13 ranking: priority first (0 never), then the larger replication offset, then the name.
TEST(ClusterFailover, ReplicaRankingByPriorityThenOffsetThenName) {
  // Priorities: R1 100, R2 10, R3 0 -> R2.
  {
    ClusterWorld world({master_spec("M"), replica_spec("R1", "M", 100), replica_spec("R2", "M", 10),
                        replica_spec("R3", "M", 0)},
                       three_sentinels("M", 1000));
    world.crash_at(2000, "M", StopKind::kill);
    world.run_until(5000);
    EXPECT_TRUE(world.node("R2").is_master());
    EXPECT_EQ(world.node("R1").master(), world.id("R2"));
  }
  // Equal priorities; R1 (first by name) missed writes, so R2's larger offset wins.
  {
    ClusterWorld world({master_spec("M"), replica_spec("R1", "M"), replica_spec("R2", "M")},
                       three_sentinels("M", 1000));
    world.at(0, [&] {
      world.simulator.network().add_partition(
          {.side_a = {world.id("M")}, .side_b = {world.id("R1")}});
    });
    world.send_at(100, "M", make_command("SET", "k", "v"));
    world.crash_at(2000, "M", StopKind::kill);
    world.run_until(5000);
    EXPECT_TRUE(world.node("R2").is_master());
  }
  // Equal priorities and offsets: the smaller name wins.
  {
    ClusterWorld world({master_spec("M"), replica_spec("R2", "M"), replica_spec("R1", "M")},
                       three_sentinels("M", 1000));
    world.crash_at(2000, "M", StopKind::kill);
    world.run_until(5000);
    EXPECT_TRUE(world.node("R1").is_master());
  }
}

// F13 eligibility: a replica whose link to the master has been down for longer than
// down_after_ms * 10 + the time since SDOWN is skipped even with the best priority; with no
// eligible replica the failover is aborted.
TEST(ClusterFailover, LongDisconnectedOrPriorityZeroReplicaIsNeverPromoted) {
  {
    ClusterWorld world({master_spec("M"), replica_spec("R1", "M", 1), replica_spec("R2", "M")},
                       three_sentinels("M", 1000));
    world.at(0, [&] {
      world.simulator.network().add_partition(
          {.side_a = {world.id("M")}, .side_b = {world.id("R1")}});
    });
    world.crash_at(75'000, "M", StopKind::kill);  // R1's link has been down since ~60 s
    world.run_until(79'000);
    EXPECT_TRUE(world.node("R2").is_master());
    EXPECT_FALSE(world.node("R1").is_master());
  }
  {
    ClusterWorld world({master_spec("M"), replica_spec("R", "M", 0)}, three_sentinels("M", 1000));
    world.crash_at(2000, "M", StopKind::kill);
    world.run_until(6000);
    EXPECT_FALSE(world.node("R").is_master());
    EXPECT_TRUE(world.first(ClusterEventKind::failover_abort_no_good_slave));
  }
}

// F13 with a cut that began before the run: R1 (the best priority) has heard nothing from M since
// -62000 ms, so with repl-timeout 60 s its link has been down since -2000 ms. At the promotion
// (SDOWN at ~300 ms, promotion 1 s later) that is over 3 s, more than down_after_ms * 10 (1 s)
// plus the 1 s since SDOWN: R1 is not eligible and R2 is promoted. The same cut beginning at 0
// leaves R1 reading as connected (repl-timeout is 60 s), and it is promoted.
TEST(ClusterFailover, ReplicaDisconnectedBeforeTheRunIsNotEligible) {
  for (const bool before_run : {true, false}) {
    ClusterWorld world({master_spec("M"), replica_spec("R1", "M", 1), replica_spec("R2", "M")},
                       three_sentinels("M", 100));
    if (before_run) {
      world.cluster.set_cut_before_run(world.id("R1"),
                                       LinkCutBeforeRun{.from_master = Instant::from_ms(-62'000),
                                                        .to_master = Instant::from_ms(-62'000)});
    }
    world.at(0, [&] {
      world.simulator.network().add_partition(
          {.side_a = {world.id("M")}, .side_b = {world.id("R1")}});
    });
    auto info = world.send_at(500, "R1", make_command("INFO", "replication"));
    world.crash_at(200, "M", StopKind::kill);
    world.run_until(3000);
    EXPECT_EQ(world.node("R2").is_master(), before_run) << "before_run " << before_run;
    EXPECT_EQ(world.node("R1").is_master(), !before_run) << "before_run " << before_run;
    // INFO counts from the cut's start plus repl-timeout: at 500 ms the link has been down 2.5 s.
    const std::string text = reply_of(info).text;
    EXPECT_EQ(text.find("master_link_down_since_seconds:2\r\n") != std::string::npos, before_run)
        << text;
  }
}

// A replica that was in sync until a cut before the run has its master's history (replid and
// offset), not a never-synced state; a cut that began less than repl-timeout before the run
// leaves it up, listed by its master with the last ACK at the cut's start, and it notices in
// the run, as it would a cut at zero that began then. One whose repl-timeout passed before the
// run is down since the cut's start plus repl-timeout, and its master no longer lists it.
TEST(ClusterFailover, ACutBeforeTheRunIsTheSameSilentCut) {
  for (const int64_t since_ms : {-1, -61'000}) {
    ClusterWorld world({master_spec("M"), replica_spec("R", "M")});
    world.cluster.set_cut_before_run(world.id("R"),
                                     LinkCutBeforeRun{.from_master = Instant::from_ms(since_ms),
                                                      .to_master = Instant::from_ms(since_ms)});
    world.at(0, [&] {
      world.simulator.network().add_partition(
          {.side_a = {world.id("M")}, .side_b = {world.id("R")}});
    });
    auto replica = world.send_at(3000, "R", make_command("INFO", "replication"));
    auto master = world.send_at(3000, "M", make_command("INFO", "replication"));
    world.run_until(3500);
    EXPECT_EQ(world.node("R").replication_id(), world.node("M").replication_id());
    const std::string r = reply_of(replica).text;
    const std::string m = reply_of(master).text;
    if (since_ms == -1) {
      EXPECT_NE(r.find("master_link_status:up\r\n"), std::string::npos) << r;
      EXPECT_NE(m.find("connected_slaves:1\r\n"), std::string::npos) << m;
      EXPECT_NE(m.find(",lag=3\r\n"), std::string::npos) << m;
    } else {
      EXPECT_NE(r.find("master_link_down_since_seconds:4\r\n"), std::string::npos) << r;
      EXPECT_NE(m.find("connected_slaves:0\r\n"), std::string::npos) << m;
    }
  }
  // Cut 1 ms before the run: noticed at the first check after 59999 ms, as a cut at zero is at
  // the first after 60000 ms.
  ClusterWorld world({master_spec("M"), replica_spec("R", "M")});
  world.cluster.set_cut_before_run(
      world.id("R"),
      LinkCutBeforeRun{.from_master = Instant::from_ms(-1), .to_master = Instant::from_ms(-1)});
  world.at(0, [&] {
    world.simulator.network().add_partition({.side_a = {world.id("M")}, .side_b = {world.id("R")}});
  });
  world.run_until(59'900);
  EXPECT_TRUE(world.node("R").master_link_up());
  world.run_until(60'100);
  EXPECT_FALSE(world.node("R").master_link_up());
}

// Redis prints master_link_down_since_seconds:-1 for a replica whose link has not been up since
// it started (repl_down_since is 0 until then): R1, restarted while cut off from M, reads -1
// however long it has been down, and Sentinel reads that as -1000 ms, so it stays eligible and,
// with the best priority, is promoted.
TEST(ClusterFailover, ReplicaRestartedWhileCutOffReadsMinusOne) {
  ClusterWorld world({master_spec("M"), replica_spec("R1", "M", 1), replica_spec("R2", "M")},
                     three_sentinels("M", 100));
  world.at(0, [&] {
    world.simulator.network().add_partition(
        {.side_a = {world.id("M")}, .side_b = {world.id("R1")}});
  });
  world.crash_at(100, "R1", StopKind::kill);
  world.restart_at(200, "R1");
  auto info = world.send_at(2500, "R1", make_command("INFO", "replication"));
  world.crash_at(3000, "M", StopKind::kill);
  world.run_until(6000);
  const std::string text = reply_of(info).text;
  EXPECT_NE(text.find("master_link_down_since_seconds:-1\r\n"), std::string::npos) << text;
  EXPECT_TRUE(world.node("R1").is_master());
  EXPECT_FALSE(world.node("R2").is_master());
}

// Checked against redis-server 7.0.15: a master made a replica by REPLICAOF of a master it cannot
// reach reads master_link_down_since_seconds:-1 (its link has not been up since it started), while
// a replica whose link was up counts from the REPLICAOF that dropped it.
TEST(ClusterFailover, ReplicaofOnAMasterReadsMinusOneOnAConnectedReplicaCountsFromIt) {
  ClusterWorld world({master_spec("M"), replica_spec("R", "M"), master_spec("X")});
  world.at(0, [&] {
    world.simulator.network().add_partition(
        {.side_a = {world.id("X")}, .side_b = {world.id("M"), world.id("R")}});
  });
  world.send_at(1000, "X", make_command("REPLICAOF", "M", "6379"));
  world.send_at(1000, "R", make_command("REPLICAOF", "X", "6379"));
  auto x_info = world.send_at(4000, "X", make_command("INFO", "replication"));
  auto r_info = world.send_at(4000, "R", make_command("INFO", "replication"));
  world.run_until(5000);
  const std::string x = reply_of(x_info).text;
  const std::string r = reply_of(r_info).text;
  EXPECT_NE(x.find("master_link_down_since_seconds:-1\r\n"), std::string::npos) << x;
  EXPECT_NE(r.find("master_link_down_since_seconds:3\r\n"), std::string::npos) << r;
}

// Item 12: ODOWN needs `quorum` sentinels, and the leader needs a majority of all sentinels:
// with only two of five sentinels alive (quorum 2) the master is ODOWN but nobody is elected.
TEST(ClusterFailover, OdownNeedsQuorumAndFailoverNeedsMajority) {
  {
    FailoverSpec failover = three_sentinels("M", 1000);
    failover.quorum = 3;
    ClusterWorld world({master_spec("M"), replica_spec("R", "M")}, failover);
    world.crash_at(0, "S3", StopKind::kill);
    world.crash_at(500, "M", StopKind::kill);
    world.run_until(8000);
    EXPECT_TRUE(world.first(ClusterEventKind::sdown));
    EXPECT_FALSE(world.first(ClusterEventKind::odown));
    EXPECT_FALSE(world.node("R").is_master());
  }
  {
    FailoverSpec failover = three_sentinels("M", 1000);
    failover.sentinels = {"S1", "S2", "S3", "S4", "S5"};
    ClusterWorld world({master_spec("M"), replica_spec("R", "M")}, failover);
    for (const char* dead : {"S3", "S4", "S5"})
      world.crash_at(0, dead, StopKind::kill);
    world.crash_at(500, "M", StopKind::kill);
    world.run_until(15'000);
    EXPECT_TRUE(world.first(ClusterEventKind::odown));
    EXPECT_TRUE(world.first(ClusterEventKind::try_failover));
    EXPECT_FALSE(world.first(ClusterEventKind::elected_leader));
    EXPECT_FALSE(world.node("R").is_master());
  }
}

}  // namespace
}  // namespace redlock_sim
