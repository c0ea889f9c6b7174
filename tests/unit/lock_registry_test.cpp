// The lock registry: every entry is listable and constructible, overrides are checked.
#include <gtest/gtest.h>

#include <set>

#include "lock_impls/families/redlock.hpp"
#include "lock_impls/registry.hpp"
#include "tests/unit/lock_world.hpp"

namespace redlock_sim {
namespace {

using testing::LockWorld;

// Every family, the fourteen library profiles and the seven zoo variants are registered.
TEST(LockRegistry, ListsEveryFamilyProfileAndZooVariant) {
  std::map<LockKind, std::set<std::string>> names;
  for (const LockEntry& e : lock_entries()) {
    // embedding_test.cpp registers locks of its own under this prefix; when the whole binary
    // runs in one process (not one test a process, as under ctest) they are here too.
    if (e.name.starts_with("embedding-test-")) continue;
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
    MadeLock made = make_lock(e.name, world.client(), 5);
    EXPECT_TRUE(made.client) << made.error;
    for (const ParamSpec& spec : e.params) {
      ParamValue value = int64_t{3};
      if (spec.type == ParamType::boolean) value = true;
      if (spec.type == ParamType::choice) value = spec.choices.front();
      MadeLock with = make_lock(e.name, world.client(), 5, {{spec.name, value}});
      EXPECT_TRUE(with.client) << spec.name << "=" << param_value_text(value) << ": " << with.error;
    }
  }
}

// Unknown keys, malformed values and unknown names are errors that name the culprit.
TEST(LockRegistry, BadOverridesAreNamedErrors) {
  LockWorld world(1);
  EXPECT_EQ(make_lock("redlock", world.client(), 5, {{"tll_ms", 5}}).error,
            "tll_ms: not an override of this lock");
  EXPECT_EQ(make_lock("redlock", world.client(), 5, {{"ttl_ms", "5s"}}).error,
            "ttl_ms: expected an integer, got '5s'");
  EXPECT_EQ(make_lock("redlock", world.client(), 5, {{"clock", "sundial"}}).error,
            "clock: expected wall | monotonic, got 'sundial'");
  EXPECT_EQ(make_lock("nope", world.client(), 5).error, "unknown lock 'nope'");
  EXPECT_FALSE(make_lock("redlock", world.client(), 5, {{"ttl_ms", "5s"}}).client);
}

// Every integer override has a range; values the model cannot compute exactly (a TTL of 2^62 ms
// overflowed int64 nanoseconds) or that make no sense (a TTL of 0 or -1) are named errors.
TEST(LockRegistry, OverridesOutOfRangeAreNamedErrors) {
  LockWorld world(1);
  const auto error = [&](const std::string& lock, const std::string& key, int64_t v) {
    return make_lock(lock, world.client(), 5, {{key, v}}).error;
  };
  EXPECT_EQ(error("redlock", "ttl_ms", int64_t{1} << 62),
            "ttl_ms: expected an integer in [1, 1000000000000], got 4611686018427387904");
  EXPECT_EQ(error("redlock", "ttl_ms", -1),
            "ttl_ms: expected an integer in [1, 1000000000000], got -1");
  EXPECT_EQ(error("redlock", "ttl_ms", 0),
            "ttl_ms: expected an integer in [1, 1000000000000], got 0");
  EXPECT_EQ(error("redlock", "retry_jitter_ms", INT64_MAX),
            "retry_jitter_ms: expected an integer in [0, 1000000000000], got 9223372036854775807");
  EXPECT_EQ(error("redlock", "retry_jitter_ms", -5),
            "retry_jitter_ms: expected an integer in [0, 1000000000000], got -5");
  EXPECT_EQ(error("redlock", "retry_count", -2),
            "retry_count: expected an integer in [-1, 1000000], got -2");
  EXPECT_EQ(error("redlock", "drift_ppm", 1000001),
            "drift_ppm: expected an integer in [0, 1000000], got 1000001");
  EXPECT_EQ(error("watchdog", "watchdog_period_ms", 0),
            "watchdog_period_ms: expected an integer in [1, 1000000000000], got 0");
  EXPECT_TRUE(make_lock("redlock", world.client(), 5, {{"ttl_ms", 1000000000000}}).client);
  EXPECT_TRUE(make_lock("redlock", world.client(), 5, {{"retry_jitter_ms", 0}}).client);
  // 0 is "no TTL" for the locks that have none by default.
  EXPECT_TRUE(make_lock("zoo-no-ttl", world.client(), 5, {{"ttl_ms", 0}}).client);
  EXPECT_EQ(error("zoo-no-ttl", "ttl_ms", -1),
            "ttl_ms: expected an integer in [0, 1000000000000], got -1");
}

// Values are typed: a number written as text, or a flag written as a number, is an error that
// says what the table expects; nothing converts one type to another.
TEST(LockRegistry, ValuesAreTypedByTheTable) {
  EXPECT_EQ(check_lock_params("redlock", {{"ttl_ms", "3000"}}),
            "ttl_ms: expected an integer, got '3000'");
  EXPECT_EQ(check_lock_params("redsync-v4", {{"fail_fast", int64_t{1}}}),
            "fail_fast: expected true or false, got 1");
  EXPECT_EQ(check_lock_params("redlock", {{"clock", true}}),
            "clock: expected wall | monotonic, got true");
  EXPECT_EQ(check_lock_params("nope", {}), "unknown lock 'nope'");
  EXPECT_EQ(check_lock_params("redlock", {{"ttl_ms", int64_t{3000}}, {"clock", "wall"}}),
            std::nullopt);
}

// Every row of every table is complete, and its default (when it has one) passes its own check;
// the defaults shown are the lock's: redsync retries 31 times, redlock-rb sends 100 ms timeouts.
TEST(LockRegistry, EveryTableRowHasHelpAndAValidDefault) {
  for (const LockEntry& e : lock_entries()) {
    for (const ParamSpec& spec : e.params) {
      SCOPED_TRACE(e.name + "." + spec.name);
      EXPECT_FALSE(spec.help.empty());
      if (spec.default_value) {
        EXPECT_EQ(check_params(e.params, {{spec.name, *spec.default_value}}), std::nullopt);
      }
    }
  }
  const auto default_of = [](const char* lock, const char* name) {
    return *find_param(find_lock_entry(lock)->params, name)->default_value;
  };
  EXPECT_EQ(default_of("redsync-v4", "retry_count"), ParamValue(int64_t{31}));
  EXPECT_EQ(default_of("redlock-rb", "request_timeout_ms"), ParamValue(int64_t{100}));
  EXPECT_EQ(default_of("redlock-py", "clock"), ParamValue(std::string("wall")));
}

// An embedding program registers a lock of its own, declared like ours: it is listed, checked
// against its table and built with typed values; a taken name or a default outside its own
// range is refused.
TEST(LockRegistry, AnEmbeddingProgramRegistersItsOwnLock) {
  LockEntry mine{.name = "test-my-redlock",
                 .kind = LockKind::family,
                 .description = "a Redlock registered by a test",
                 .models = "tests/unit/lock_registry_test.cpp",
                 .params = {ms_param("ttl_ms", Duration::from_ms(4'000), "lock TTL", 1)},
                 .fencing_tokens = false,
                 .make = [](Port& port, const ParamValues& p) -> std::unique_ptr<LockClient> {
                   RedlockOptions o;
                   o.node_count = p.node_count();
                   o.ttl = p.ms("ttl_ms");
                   return std::make_unique<RedlockClient>(port, o);
                 }};
  LockEntry taken = mine;
  taken.name = "redlock";
  EXPECT_FALSE(register_lock(taken));
  LockEntry bad_default = mine;
  bad_default.name = "test-bad-default";
  bad_default.params[0].default_value = int64_t{0};
  EXPECT_FALSE(register_lock(bad_default));
  ASSERT_TRUE(register_lock(mine));
  ASSERT_NE(find_lock_entry("test-my-redlock"), nullptr);
  EXPECT_EQ(check_lock_params("test-my-redlock", {{"ttl_ms", int64_t{0}}}),
            "ttl_ms: expected an integer in [1, 1000000000000], got 0");
  LockWorld world(1, 3);
  MadeLock made = make_lock("test-my-redlock", world.client(), 3, {{"ttl_ms", int64_t{1'000}}});
  ASSERT_TRUE(made.client) << made.error;
  EXPECT_EQ(static_cast<RedlockClient&>(*made.client).options().ttl, Duration::from_ms(1'000));
  EXPECT_EQ(static_cast<RedlockClient&>(*made.client).options().node_count, 3u);
}

// Overrides reach the algorithm: a 3-node Redlock with a 1 s TTL grants with a 1 s deadline.
// The hash-lock family's WAIT timeout is a parameter: WAIT <replicas> <replica_wait_ms>.
TEST(LockRegistry, HashLockWaitTimeoutIsAParameter) {
  LockWorld world(1, 1);
  world.nodes[0]->wait_acks = 2;
  MadeLock made = make_lock("wait-acked-hash", world.client(), 5, {{"replica_wait_ms", 50}});
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
  MadeLock made = make_lock("redlock", world.client(), 3, {{"ttl_ms", 1000}, {"clock", "wall"}});
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
// A lock learns how many nodes it has from its client's node list (make_lock's node count), and
// no lock declares a `nodes` parameter that could disagree with it.
TEST(LockRegistry, TheNodeCountComesFromTheNodeList) {
  for (const LockEntry& e : lock_entries()) {
    EXPECT_EQ(find_param(e.params, "nodes"), nullptr) << e.name;
  }
  LockWorld world(1, 3);
  for (uint32_t node_count : {1u, 3u}) {
    MadeLock made = make_lock("redlock", world.client(), node_count);
    ASSERT_TRUE(made.client) << made.error;
    EXPECT_EQ(static_cast<RedlockClient&>(*made.client).options().node_count, node_count);
  }
  EXPECT_TRUE(find_lock_entry("redlock")->multi_node);
  EXPECT_FALSE(find_lock_entry("single-instance")->multi_node);
}

}  // namespace redlock_sim
