// Each zoo variant, in a scripted run, ends differently from its correct twin.
#include <gtest/gtest.h>

#include "lock_impls/registry.hpp"
#include "tests/unit/lock_world.hpp"

namespace redlock_sim {
namespace {

using testing::LockWorld;

using testing::at_ms;
using testing::make;

// A releases after its key expired and B took the lock: does B's key survive A's release?
bool b_survives_late_release(const std::string& name) {
  LockWorld world(1, 1, 2);
  auto a = make(name, world.client(0), {{"ttl_ms", 1000}});
  auto b = make("single-instance", world.client(1));
  auto a_body = [&]() -> Task<void> {
    Grant grant = co_await a->acquire("k");
    co_await world.client(0).sleep(Duration::from_ms(1'500));
    co_await a->release(grant.lease);
  };
  auto b_body = [&]() -> Task<void> {
    co_await world.client(1).sleep(Duration::from_ms(1'200));
    co_await b->acquire("k");
  };
  world.client(0).spawn(a_body());
  world.client(1).spawn(b_body());
  world.simulator.run(at_ms(2'000));
  return world.nodes[0]->has("k");
}

TEST(ZooPlainDelRelease, DeletesTheNextHoldersLock) {
  EXPECT_FALSE(b_survives_late_release("zoo-plain-del-release"));
  EXPECT_TRUE(b_survives_late_release("single-instance"));
}

// A's GET sees its own value just before expiry; B takes the lock; A's DEL then removes B's.
bool b_survives_get_then_del(const std::string& name) {
  LockWorld world(1, 1, 2);
  world.simulator.network().set_link_delay(world.client(0).id(), world.node_id(0),
                                           DelaySpec::fixed(Duration::from_ms(5)));
  world.simulator.network().set_link_delay(world.node_id(0), world.client(0).id(),
                                           DelaySpec::fixed(Duration::from_ms(5)));
  auto a = make(name, world.client(0), {{"ttl_ms", 1000}});
  auto b = make("single-instance", world.client(1));
  auto a_body = [&]() -> Task<void> {
    Grant grant = co_await a->acquire("k");  // SET lands at 5 ms: the key lives to 1 005 ms
    co_await world.client(0).sleep(Duration::from_ms(990));
    co_await a->release(grant.lease);  // GET lands at 1 005 ms, DEL at 1 015 ms
  };
  auto b_body = [&]() -> Task<void> {
    co_await world.client(1).sleep(Duration::from_ms(1'007));
    co_await b->acquire("k");  // SET lands at 1 008 ms
  };
  world.client(0).spawn(a_body());
  world.client(1).spawn(b_body());
  world.simulator.run(at_ms(1'100));
  return world.nodes[0]->has("k");
}

TEST(ZooGetThenDelRelease, DeletesAKeyThatChangedHands) {
  EXPECT_FALSE(b_survives_get_then_del("zoo-get-then-del-release"));
  EXPECT_TRUE(b_survives_get_then_del("single-instance"));
}

// The client crashes right after its SETNX was applied: the key never expires.
int64_t pttl_after_crash_mid_acquire(const std::string& name) {
  LockWorld world(1, 1);
  auto lock = make(name, world.client());
  world.simulator.schedule_action(Instant::from_ns(1'500'000),
                                  [&] { world.simulator.crash(world.client().id()); });
  auto body = [&]() -> Task<void> { co_await lock->acquire("k"); };
  world.run(0, body(), at_ms(100));
  return world.nodes[0]->pttl("k");
}

TEST(ZooSetnxThenExpire, CrashBetweenTheTwoLeavesNoTtl) {
  EXPECT_EQ(pttl_after_crash_mid_acquire("zoo-setnx-then-expire"), -1);
  EXPECT_GT(pttl_after_crash_mid_acquire("single-instance"), 0);
}

// The holder crashes; does another client ever get the lock?
bool b_acquires_after_holder_crash(const std::string& name) {
  LockWorld world(1, 1, 2);
  auto a = make(name, world.client(0), {{"ttl_ms", name == "zoo-no-ttl" ? 0 : 1000}});
  auto b = make(name, world.client(1), {{"retry_count", 100}});
  Grant gb;
  auto a_body = [&]() -> Task<void> { co_await a->acquire("k"); };
  auto b_body = [&]() -> Task<void> {
    co_await world.client(1).sleep(Duration::from_ms(10));
    gb = co_await b->acquire("k");
  };
  world.client(0).spawn(a_body());
  world.client(1).spawn(b_body());
  world.simulator.schedule_action(at_ms(5), [&] { world.simulator.crash(world.client(0).id()); });
  world.simulator.run(at_ms(20'000));
  return gb.acquired;
}

TEST(ZooNoTtl, CrashedHolderBlocksForEver) {
  EXPECT_FALSE(b_acquires_after_holder_crash("zoo-no-ttl"));
  EXPECT_TRUE(b_acquires_after_holder_crash("single-instance"));
}

// Replies take 11 s: the keys are gone by the time the majority's replies arrive.
TEST(ZooNoElapsedCheck, GrantsALockWhoseKeysHaveExpired) {
  for (const std::string name : {"zoo-no-elapsed-check", "redlock"}) {
    SCOPED_TRACE(name);
    LockWorld world(1);
    for (std::size_t n = 0; n < 5; ++n) {
      world.simulator.network().set_link_delay(world.node_id(n), world.client().id(),
                                               DelaySpec::fixed(Duration::from_ms(11'000)));
    }
    auto lock = make(name, world.client(), {{"retry_count", 0}, {"request_timeout_ms", 20000}});
    Grant grant;
    bool keys_live_at_grant = true;
    world.run(
        0,
        [&]() -> Task<void> {
          grant = co_await lock->acquire("k");
          keys_live_at_grant = world.nodes[0]->has("k");
        }(),
        at_ms(30'000));
    EXPECT_FALSE(keys_live_at_grant);
    EXPECT_EQ(grant.acquired, name == "zoo-no-elapsed-check");
  }
}

// Four of five keys now belong to someone else: only the minority extension "succeeds".
TEST(ZooExtendOnMinority, ExtendsWithOneNode) {
  for (const std::string name : {"zoo-extend-on-minority", "redlock"}) {
    SCOPED_TRACE(name);
    LockWorld world(1);
    auto lock = make(name, world.client());
    ExtendResult extended;
    world.run(
        0,
        [&]() -> Task<void> {
          Grant grant = co_await lock->acquire("k");
          for (std::size_t n = 1; n < 5; ++n)
            world.nodes[n]->set_raw("k", "other", 60'000);
          extended = co_await lock->extend(grant.lease);
        }(),
        at_ms(1'000));
    EXPECT_EQ(extended.nodes, 1u);
    EXPECT_EQ(extended.extended, name == "zoo-extend-on-minority");
  }
}

// The lock lapsed while the holder was paused: the resurrecting extend brings it back.
TEST(ZooResurrectingExtend, ExtendRecreatesLapsedKeys) {
  for (const std::string name : {"zoo-resurrecting-extend", "redlock"}) {
    SCOPED_TRACE(name);
    LockWorld world(1);
    auto lock = make(name, world.client());
    ExtendResult extended;
    world.run(
        0,
        [&]() -> Task<void> {
          Grant grant = co_await lock->acquire("k");
          co_await world.client().sleep(Duration::from_ms(11'000));
          extended = co_await lock->extend(grant.lease);
        }(),
        at_ms(12'000));
    EXPECT_EQ(extended.extended, name == "zoo-resurrecting-extend");
    EXPECT_EQ(world.nodes[0]->has("k"), name == "zoo-resurrecting-extend");
  }
}

// The lock lapsed and B's keys took its place: the unconditional SET XX overwrites them all.
TEST(ZooUnconditionalExtend, OverwritesTheNewHoldersKeys) {
  for (const std::string name : {"zoo-unconditional-extend", "redlock"}) {
    SCOPED_TRACE(name);
    LockWorld world(1);
    auto lock = make(name, world.client());
    ExtendResult extended;
    std::string value;
    world.run(
        0,
        [&]() -> Task<void> {
          Grant grant = co_await lock->acquire("k");
          value = grant.lease->value;
          for (std::size_t n = 0; n < 5; ++n)
            world.nodes[n]->set_raw("k", "B", 10'000);
          extended = co_await lock->extend(grant.lease);
        }(),
        at_ms(1'000));
    const bool buggy = name == "zoo-unconditional-extend";
    EXPECT_EQ(extended.extended, buggy);
    EXPECT_EQ(extended.nodes, buggy ? 5u : 0u);
    for (std::size_t n = 0; n < 5; ++n)
      EXPECT_EQ(world.nodes[n]->get("k"), buggy ? value : std::string("B"));
  }
}

}  // namespace
}  // namespace redlock_sim
