// The lock registry: every entry is listable and constructible, overrides are checked.
#include <gtest/gtest.h>

#include <set>

#include "lock_impls/registry.hpp"
#include "tests/unit/lock_world.hpp"

namespace redlock_sim {
namespace {

using testing::LockWorld;

// Every family, the fourteen library profiles and the seven zoo variants are registered.
TEST(LockRegistry, ListsEveryFamilyProfileAndZooVariant) {
  std::map<LockKind, std::set<std::string>> names;
  for (const LockEntry& e : lock_entries()) {
    EXPECT_FALSE(e.description.empty()) << e.name;
    EXPECT_FALSE(e.models.empty()) << e.name;
    names[e.kind].insert(e.name);
  }
  EXPECT_EQ(names[LockKind::family],
            (std::set<std::string>{"fenced", "redlock", "single-instance", "wait-acked-hash",
                                   "watchdog", "watchdog-silent"}));
  EXPECT_EQ(names[LockKind::profile].size(), 14u);
  EXPECT_EQ(names[LockKind::zoo].size(), 8u);
  EXPECT_NE(find_lock_entry("node-redlock-5.0.0-beta.2"), nullptr);
  EXPECT_EQ(find_lock_entry("nope"), nullptr);
}

// Each entry builds with its defaults, and with each of its overrides set to a sane value.
// The entries whose grants carry fencing tokens say so (the matrix checks their tokens).
TEST(LockRegistry, FencedLocksDeclareTheirTokens) {
  std::set<std::string> fenced;
  for (const LockEntry& entry : lock_entries()) {
    if (entry.fencing_tokens) fenced.insert(entry.name);
  }
  EXPECT_EQ(fenced, (std::set<std::string>{"fenced", "redisson-fencedlock"}));
}

TEST(LockRegistry, EveryEntryConstructsWithDefaultsAndOverrides) {
  LockWorld world(1);
  for (const LockEntry& e : lock_entries()) {
    SCOPED_TRACE(e.name);
    MadeLock made = make_lock(e.name, world.client());
    EXPECT_TRUE(made.client) << made.error;
    for (const LockOverride& o : e.overrides) {
      std::string value = "3";
      if (o.type == "bool") value = "true";
      if (o.type.find('|') != std::string::npos) value = o.type.substr(0, o.type.find(' '));
      MadeLock with = make_lock(e.name, world.client(), {{o.key, value}});
      EXPECT_TRUE(with.client) << o.key << "=" << value << ": " << with.error;
    }
  }
}

// Unknown keys, malformed values and unknown names are errors that name the culprit.
TEST(LockRegistry, BadOverridesAreNamedErrors) {
  LockWorld world(1);
  EXPECT_EQ(make_lock("redlock", world.client(), {{"tll_ms", "5"}}).error,
            "tll_ms: not an override of this lock");
  EXPECT_EQ(make_lock("redlock", world.client(), {{"ttl_ms", "5s"}}).error,
            "ttl_ms: expected an integer, got '5s'");
  EXPECT_EQ(make_lock("redlock", world.client(), {{"clock", "sundial"}}).error,
            "clock: expected wall | monotonic, got 'sundial'");
  EXPECT_EQ(make_lock("nope", world.client()).error, "unknown lock 'nope'");
  EXPECT_FALSE(make_lock("redlock", world.client(), {{"ttl_ms", "5s"}}).client);
}

// Every integer override has a range; values the model cannot compute exactly (a TTL of 2^62 ms
// overflowed int64 nanoseconds) or that make no sense (a TTL of 0 or -1) are named errors.
TEST(LockRegistry, OverridesOutOfRangeAreNamedErrors) {
  LockWorld world(1);
  const auto error = [&](const std::string& lock, const std::string& key, const std::string& v) {
    return make_lock(lock, world.client(), {{key, v}}).error;
  };
  EXPECT_EQ(error("redlock", "ttl_ms", "4611686018427387904"),
            "ttl_ms: expected an integer in [1, 1000000000000], got 4611686018427387904");
  EXPECT_EQ(error("redlock", "ttl_ms", "-1"),
            "ttl_ms: expected an integer in [1, 1000000000000], got -1");
  EXPECT_EQ(error("redlock", "ttl_ms", "0"),
            "ttl_ms: expected an integer in [1, 1000000000000], got 0");
  EXPECT_EQ(error("redlock", "ttl_ms", "99999999999999999999"),
            "ttl_ms: expected an integer in [1, 1000000000000], got 99999999999999999999");
  EXPECT_EQ(error("redlock", "retry_jitter_ms", "9223372036854775807"),
            "retry_jitter_ms: expected an integer in [0, 1000000000000], got 9223372036854775807");
  EXPECT_EQ(error("redlock", "retry_jitter_ms", "-5"),
            "retry_jitter_ms: expected an integer in [0, 1000000000000], got -5");
  EXPECT_EQ(error("redlock", "retry_count", "-2"),
            "retry_count: expected an integer in [-1, 1000000], got -2");
  EXPECT_EQ(error("redlock", "drift_ppm", "1000001"),
            "drift_ppm: expected an integer in [0, 1000000], got 1000001");
  EXPECT_EQ(error("watchdog", "watchdog_period_ms", "0"),
            "watchdog_period_ms: expected an integer in [1, 1000000000000], got 0");
  EXPECT_TRUE(make_lock("redlock", world.client(), {{"ttl_ms", "1000000000000"}}).client);
  EXPECT_TRUE(make_lock("redlock", world.client(), {{"retry_jitter_ms", "0"}}).client);
  // 0 is "no TTL" for the locks that have none by default.
  EXPECT_TRUE(make_lock("zoo-no-ttl", world.client(), {{"ttl_ms", "0"}}).client);
  EXPECT_EQ(error("zoo-no-ttl", "ttl_ms", "-1"),
            "ttl_ms: expected an integer in [0, 1000000000000], got -1");
}

// Overrides reach the algorithm: a 3-node Redlock with a 1 s TTL grants with a 1 s deadline.
// The hash-lock family's WAIT timeout is a parameter: WAIT <replicas> <replica_wait_ms>.
TEST(LockRegistry, HashLockWaitTimeoutIsAParameter) {
  LockWorld world(1, 1);
  world.nodes[0]->wait_acks = 2;
  MadeLock made = make_lock("wait-acked-hash", world.client(), {{"replica_wait_ms", "50"}});
  ASSERT_TRUE(made.client) << made.error;
  Grant grant;
  world.run(0, [&]() -> Task<void> { grant = co_await made.client->acquire("k"); }());
  ASSERT_TRUE(grant.acquired);
  bool waited = false;
  for (const Command& command : world.nodes[0]->log) {
    if (command.at(0) == "WAIT") waited = command == Command{"WAIT", "2", "50"};
  }
  EXPECT_TRUE(waited);
}

TEST(LockRegistry, OverridesReachTheAlgorithm) {
  LockWorld world(1, 3);
  MadeLock made =
      make_lock("redlock", world.client(), {{"nodes", "3"}, {"ttl_ms", "1000"}, {"clock", "wall"}});
  ASSERT_TRUE(made.client);
  Grant grant;
  world.run(
      0, [&]() -> Task<void> { grant = co_await made.client->acquire("k"); }(),
      Instant::from_ms(100));
  ASSERT_TRUE(grant.acquired);
  EXPECT_EQ(grant.nodes_locked, 3u);
  EXPECT_EQ(grant.lease->deadline,
            (Deadline{ClockKind::wall, Instant::from_ms(default_epoch_ms + 1'000 - 12)}));
}

}  // namespace
}  // namespace redlock_sim
