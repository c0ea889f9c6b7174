// One test per library profile, each pinning the quirk that tells that library apart
// (docs/lock-clients.md lists test and source; bug ids in docs/catalogue.md).
#include <gtest/gtest.h>

#include <set>

#include "lock_impls/profiles/aioredlock.hpp"
#include "lock_impls/profiles/node_redlock.hpp"
#include "lock_impls/profiles/pottery.hpp"
#include "lock_impls/profiles/redis_plus_plus.hpp"
#include "lock_impls/profiles/redlock_py.hpp"
#include "lock_impls/registry.hpp"
#include "tests/unit/lock_world.hpp"

namespace redlock_sim {
namespace {

using testing::LockWorld;

using testing::at_ms;
using testing::make;

// redsync v4: one value for every try, a release after each failed try, drift 1% with no +2.
TEST(ProfileRedsyncV4, OneValueForAllTriesReleaseAfterEachAndExactDrift) {
  LockWorld world(3, 3);
  for (std::size_t n : {1, 2})
    world.nodes[n]->set_raw("k", "other", 300);
  auto lock = make("redsync-v4", world.client(), 3, {});
  Grant grant;
  Instant last_start;
  world.attach_notes(*lock, "c0");
  world.run(
      0, [&]() -> Task<void> { grant = co_await lock->acquire("k"); }(), at_ms(2'000));
  ASSERT_TRUE(grant.acquired);
  EXPECT_GT(grant.attempts, 1u);
  std::size_t sets = 0;
  std::size_t releases = 0;
  for (const Command& c : world.nodes[0]->log) {
    if (c[0] == "SET") {
      ++sets;
      EXPECT_EQ(c[2], grant.lease->value);  // the same value on every try
    }
    if (c[0] == "EVALSHA" || c[0] == "EVAL") ++releases;
  }
  EXPECT_EQ(sets, grant.attempts);
  EXPECT_GE(releases, grant.attempts - 1);  // released after each failed try
  // Drift is exactly 80 ms of the 8 s expiry: the deadline is T1 + 7 920 ms.
  const std::string& last = world.notes.back();
  const int64_t t2_ms = std::stoll(last.substr(0, last.find(' ')));
  EXPECT_EQ(grant.lease->deadline.at, at_ms(t2_ms - 2 + 7'920));
}

// redsync v4: the release after a failed try runs under the try's own timeout (expiry * 0.05 =
// 400 ms), so a node that never answers costs 400 ms, not the caller's whole context.
TEST(ProfileRedsyncV4, ReleaseAfterAFailedTryHasTheTrysTimeout) {
  LockWorld world(3, 3);
  world.nodes[1]->set_raw("k", "other", 60'000);
  world.partition(0, {2});
  auto lock = make("redsync-v4", world.client(), 3, {{"retry_count", 1}});
  const auto [grant, done_at, done_ms] = world.acquire(0, *lock, "k", at_ms(60'000));
  EXPECT_FALSE(grant.acquired);
  EXPECT_EQ(grant.attempts, 2u);
  // Each try waits 400 ms for the silent node, then its release 400 ms more; 50-249 ms between.
  EXPECT_GT(done_ms, 1'650);
  EXPECT_LT(done_ms, 1'850);
}

// node-redlock 5.0.0-beta.2: validity counts from before the retries and is never checked, so
// a lock won after the duration has passed is returned already expired.
TEST(ProfileNodeRedlock5Beta2, ValidityFromBeforeRetriesReturnsAnExpiredLock) {
  LockWorld world(3, 3);
  for (std::size_t n : {1, 2})
    world.nodes[n]->set_raw("k", "other", 1'500);
  auto lock = make("node-redlock-5.0.0-beta.2", world.client(), 3, {{"ttl_ms", 1000}});
  Grant grant;
  Instant wall_at_grant;
  world.run(
      0,
      [&]() -> Task<void> {
        grant = co_await lock->acquire("k");
        wall_at_grant = world.client().wall_now();
      }(),
      at_ms(5'000));
  ASSERT_TRUE(grant.acquired);
  EXPECT_GT(grant.attempts, 5u);
  EXPECT_EQ(grant.lease->deadline.clock, ClockKind::wall);
  const Instant start = Instant::from_ms(default_epoch_ms);
  EXPECT_EQ(grant.lease->deadline.at, start + Duration::from_ms(1'000 - 12));
  EXPECT_LT(grant.lease->deadline.at, wall_at_grant);  // expired when handed out
}

// node-redlock 5.0.0-beta.2: extend's new expiration counts from before its retry loop, so a
// retry that wins still dates the lock from the first try.
TEST(ProfileNodeRedlock5Beta2, ExtendDatesFromBeforeItsRetries) {
  LockWorld world(3, 3);
  auto lock = make("node-redlock-5.0.0-beta.2", world.client(), 3, {{"request_timeout_ms", 50}});
  ExtendResult extended;
  Instant first_try;
  world.run(
      0,
      [&]() -> Task<void> {
        Grant grant = co_await lock->acquire("k");
        co_await world.client().sleep(Duration::from_ms(1'000) -
                                      (world.simulator.now() - Instant::zero()));
        PartitionRule cut{.side_a = {world.client().id()},
                          .side_b = {world.node_id(1), world.node_id(2)},
                          .start = world.simulator.now(),
                          .end = world.simulator.now() + Duration::from_ms(60)};
        world.simulator.network().add_partition(cut);
        first_try = world.client().wall_now();
        extended = co_await lock->extend(grant.lease);
      }(),
      at_ms(20'000));
  ASSERT_TRUE(extended.extended);
  // From the first try's start on the wall clock: + 10000 - (round(100) + 2).
  EXPECT_EQ(extended.deadline.at, first_try + Duration::from_ms(9'898));
}

// node-redlock 5.0.0-beta.2 is the library's own `Redlock` (NodeRedlockClient), with only the
// rows it has: acquire, extend and release all run `_execute`, so retryCount bounds a release's
// and an extension's attempts as it bounds an acquisition's.
TEST(ProfileNodeRedlock5Beta2, IsTheLibrarysOwnLoopWithItsOwnParameters) {
  LockWorld world(3, 3);
  auto lock = make("node-redlock-5.0.0-beta.2", world.client(), 3, {{"retry_count", 2}});
  const auto* redlock =
      dynamic_cast<const profiles::LibraryClient<profiles::NodeRedlockOptions>*>(lock.get());
  ASSERT_NE(redlock, nullptr);
  EXPECT_EQ(redlock->options().retry_count, 2);
  for (const char* absent : {"fan_out", "wait", "extend_quorum"}) {
    EXPECT_EQ(check_lock_params("node-redlock-5.0.0-beta.2", {{absent, int64_t{0}}}),
              std::string(absent) + ": not an override of this lock");
  }
  ExtendResult extended;
  ReleaseResult released;
  std::size_t before = 0;
  std::size_t between = 0;
  world.run(
      0,
      [&]() -> Task<void> {
        Grant grant = co_await lock->acquire("k");
        world.nodes[0]->flush();  // two keys gone: only one node can vote for
        world.nodes[1]->flush();
        before = world.nodes[2]->log.size();
        extended = co_await lock->extend(grant.lease);
        between = world.nodes[2]->log.size();
        released = co_await lock->release(grant.lease);
      }(),
      at_ms(30'000));
  EXPECT_FALSE(extended.extended);
  EXPECT_FALSE(released.released);
  std::size_t extend_attempts = 0;  // EVALSHA (the first is followed by EVAL after NOSCRIPT)
  for (std::size_t i = before; i < between; ++i)
    extend_attempts += world.nodes[2]->log[i][0] == "EVALSHA" ? 1 : 0;
  std::size_t release_attempts = 0;
  for (std::size_t i = between; i < world.nodes[2]->log.size(); ++i)
    release_attempts += world.nodes[2]->log[i][0] == "EVALSHA" ? 1 : 0;
  EXPECT_EQ(extend_attempts, 3u);  // retryCount 2: three attempts
  EXPECT_EQ(release_attempts, 3u);
}

// node-redlock 4.2.0: unlock() is one pass; a release that misses its quorum is not retried
// (5.0.0-beta.2 retries it like any other operation).
TEST(ProfileNodeRedlock420, ReleaseIsOnePass) {
  for (const std::string name : {"node-redlock-4.2.0", "node-redlock-5.0.0-beta.2"}) {
    SCOPED_TRACE(name);
    LockWorld world(3, 3);
    auto lock = make(name, world.client(), 3, {});
    ReleaseResult released;
    std::size_t before = 0;
    world.run(
        0,
        [&]() -> Task<void> {
          Grant grant = co_await lock->acquire("k");
          world.nodes[0]->flush();  // two keys gone: the release can reach only one node
          world.nodes[1]->flush();
          before = world.nodes[2]->log.size();
          released = co_await lock->release(grant.lease);
        }(),
        at_ms(30'000));
    EXPECT_FALSE(released.released);
    std::size_t passes = 0;  // EVALSHA of the release script (the first is followed by EVAL)
    for (std::size_t i = before; i < world.nodes[2]->log.size(); ++i)
      passes += world.nodes[2]->log[i][0] == "EVALSHA" ? 1 : 0;
    EXPECT_EQ(passes, name == "node-redlock-4.2.0" ? 1u : 11u);
  }
}

// node-redlock 4.2.0: a failed extend unlocks every server, yet the old lock keeps its expiration.
TEST(ProfileNodeRedlock420, FailedExtendUnlocksEveryServer) {
  LockWorld world(3, 3);
  auto lock = make("node-redlock-4.2.0", world.client(), 3, {});
  ExtendResult extended;
  std::shared_ptr<Lease> lease;
  bool node0_held_before = false;
  world.run(
      0,
      [&]() -> Task<void> {
        Grant grant = co_await lock->acquire("k");
        lease = grant.lease;
        node0_held_before = world.nodes[0]->has("k");
        for (std::size_t n : {1, 2})
          world.nodes[n]->set_raw("k", "other", 60'000);
        extended = co_await lock->extend(lease);
      }(),
      at_ms(10'000));
  EXPECT_TRUE(node0_held_before);
  EXPECT_FALSE(extended.extended);
  EXPECT_FALSE(world.nodes[0]->has("k"));  // unlocked by the failed extend
  EXPECT_EQ(lease->deadline.at, at_ms(default_epoch_ms + 10'000 - 102));  // still looks valid
}

// node-redlock has no timeout of its own: request_timeout_ms is ioredis's commandTimeout, which
// bounds the unlock too (a release to an unreachable server gives up after it, not after 1 h).
// Found by staging bug-node-redlock-4-failed-extend-unlocks with the real library.
TEST(ProfileNodeRedlock420, RequestTimeoutBoundsTheRelease) {
  for (const std::string name : {"node-redlock-4.2.0", "node-redlock-5.0.0-beta.2"}) {
    SCOPED_TRACE(name);
    LockWorld world(3, 3);
    auto lock = make(name, world.client(), 3, {{"request_timeout_ms", 50}});
    int64_t release_started_ms = -1;
    int64_t release_ended_ms = -1;
    world.run(
        0,
        [&]() -> Task<void> {
          Grant grant = co_await lock->acquire("k");
          EXPECT_TRUE(grant.acquired);
          world.partition(0, {2});
          release_started_ms = world.now_ms();
          co_await lock->release(grant.lease);
          release_ended_ms = world.now_ms();
        }(),
        at_ms(10'000));
    ASSERT_GE(release_ended_ms, 0);
    EXPECT_LE(release_ended_ms - release_started_ms, 60);
  }
}

// redlock-py: elapsed time on the wall clock; a backward step during the acquisition makes
// the computed validity longer than the TTL (redlock-rb, on the monotonic clock, is unaffected).
TEST(ProfileRedlockPy, WallClockStepBackwardStretchesValidity) {
  for (const std::string name : {"redlock-py", "redlock-rb"}) {
    SCOPED_TRACE(name);
    LockWorld world(3, 3);
    auto lock = make(name, world.client(), 3, {});
    Grant grant;
    Instant now_at_grant;
    world.simulator.schedule_action(at_ms(3), [&] {
      world.simulator.step_wall_clock(world.client().id(), Duration::from_ms(-5'000));
    });
    world.run(
        0,
        [&]() -> Task<void> {
          grant = co_await lock->acquire("k");
          now_at_grant = grant.lease->deadline.clock == ClockKind::wall
                             ? world.client().wall_now()
                             : world.client().monotonic_now();
        }(),
        at_ms(100));
    ASSERT_TRUE(grant.acquired);
    const Duration believed = grant.lease->deadline.at - now_at_grant;
    if (name == "redlock-py") {
      EXPECT_EQ(grant.lease->deadline.clock, ClockKind::wall);
      EXPECT_GT(believed, Duration::from_ms(10'000));  // longer than the keys live
    } else {
      EXPECT_LT(believed, Duration::from_ms(10'000));
    }
  }
}

// redlock-rb: lock_instances draws a new uuid for every try (extend keeps the lock's value).
TEST(ProfileRedlockRb, NewValueForEveryTry) {
  LockWorld world(3, 3);
  for (std::size_t n : {1, 2})
    world.nodes[n]->set_raw("k", "other", 300);
  auto lock = make("redlock-rb", world.client(), 3, {});
  const Grant grant = world.acquire(0, *lock, "k", at_ms(2'000)).grant;
  ASSERT_TRUE(grant.acquired);
  ASSERT_GT(grant.attempts, 1u);
  std::set<std::string> values;  // the value each acquire script carried to node 0
  for (const Command& c : world.nodes[0]->log) {
    if ((c[0] == "EVALSHA" || c[0] == "EVAL") && c.size() == 7 && c[6] == "yes") {
      values.insert(c[4]);
    }
  }
  EXPECT_EQ(values.size(), grant.attempts);
  EXPECT_EQ(values.count(grant.lease->value), 1u);
}

// redlock-rb: extend re-creates a key that lapsed (issue #36) unless extend_only_if_locked.
TEST(ProfileRedlockRb, ExtendRecreatesALapsedLock) {
  for (const bool only_if_locked : {false, true}) {
    LockWorld world(3, 3);
    auto lock = make("redlock-rb", world.client(), 3, {{"extend_only_if_locked", only_if_locked}});
    ExtendResult extended;
    world.run(
        0,
        [&]() -> Task<void> {
          Grant grant = co_await lock->acquire("k");
          co_await world.client().sleep(Duration::from_ms(11'000));  // every key has expired
          extended = co_await lock->extend(grant.lease);
        }(),
        at_ms(12'000));
    EXPECT_EQ(extended.extended, !only_if_locked);
    EXPECT_EQ(world.nodes[0]->has("k"), !only_if_locked);
  }
}

// pottery: at most num_extensions extensions (3 by default, Redlock(num_extensions=...)); the
// next one is refused locally.
TEST(ProfilePottery, ExtensionsBeyondNumExtensionsAreRefused) {
  for (const int64_t allowed : {int64_t{3}, int64_t{1}}) {
    SCOPED_TRACE(allowed);
    LockWorld world(3, 3);
    LockParams params;
    if (allowed != 3) params["num_extensions"] = allowed;
    auto lock = make("pottery", world.client(), 3, params);
    std::vector<ExtendResult> results;
    world.run(
        0,
        [&]() -> Task<void> {
          Grant grant = co_await lock->acquire("k");
          for (int64_t i = 0; i <= allowed; ++i)
            results.push_back(co_await lock->extend(grant.lease));
        }(),
        at_ms(1'000));
    ASSERT_EQ(results.size(), static_cast<std::size_t>(allowed + 1));
    for (int64_t i = 0; i < allowed; ++i)
      EXPECT_TRUE(results[i].extended);
    EXPECT_FALSE(results.back().extended);
    EXPECT_EQ(results.back().failure, "too many extensions");
  }
}

// redis-plus-plus RedLockMutex: time counts from before the retry loop, so a try that wins
// every node after the TTL has passed since the first try fails and stops retrying.
TEST(ProfileRedisPlusPlusRedLockMutex, StartTimeFixedBeforeTheRetryLoop) {
  LockWorld world(3, 3);
  for (std::size_t n : {1, 2})
    world.nodes[n]->set_raw("k", "other", 900);
  auto lock = make("redis-plus-plus-redlockmutex", world.client(), 3,
                   {{"ttl_ms", 1000}, {"retry_count", 100}});
  const Grant grant = world.acquire(0, *lock, "k", at_ms(5'000)).grant;
  EXPECT_FALSE(grant.acquired);
  EXPECT_EQ(grant.failure, "validity");
  EXPECT_EQ(grant.nodes_locked, 3u);  // every node accepted: only the old start time failed it
}

// redis-plus-plus RedLockMutex is the library's own RedLockMutexVessel (RedLockMutexClient), and
// its table offers only what that class has: no fan-out, wait or extension quorum. With
// scripting=false it is RedMutexTx, still the Redlock family with flags.
TEST(ProfileRedisPlusPlusRedLockMutex, IsTheLibrarysOwnLoopWithItsOwnParameters) {
  LockWorld world(1, 3);
  auto lock = make("redis-plus-plus-redlockmutex", world.client(), 3, {});
  const auto* vessel =
      dynamic_cast<const profiles::LibraryClient<profiles::RedLockMutexOptions>*>(lock.get());
  ASSERT_NE(vessel, nullptr);
  EXPECT_EQ(vessel->options().retry_count, 2);  // lock()'s retry_count = 3 tries
  EXPECT_EQ(vessel->options().node_count, 3u);
  for (const char* absent : {"fan_out", "wait", "extend_quorum"}) {
    EXPECT_EQ(check_lock_params("redis-plus-plus-redlockmutex", {{absent, int64_t{0}}}),
              std::string(absent) + ": not an override of this lock");
  }
  auto tx = make("redis-plus-plus-redlockmutex", world.client(), {{"scripting", false}});
  EXPECT_NE(dynamic_cast<const RedlockClient*>(tx.get()), nullptr);
}

// redis-plus-plus RedLockMutex: a node error escapes lock() even after a quorum (no try/catch
// around a node's SET), and the keys already set stay.
TEST(ProfileRedisPlusPlusRedLockMutex, NodeErrorAfterAQuorumStillFails) {
  LockWorld world(3, 3);
  world.partition(0, {2});  // the third node never answers
  auto lock = make("redis-plus-plus-redlockmutex", world.client(), 3, {{"request_timeout_ms", 50}});
  const Grant grant = world.acquire(0, *lock, "k", at_ms(1'000)).grant;
  EXPECT_FALSE(grant.acquired);
  EXPECT_EQ(grant.failure, "error");
  EXPECT_EQ(grant.attempts, 1u);  // no retry: the exception left the loop
  EXPECT_EQ(grant.nodes_locked, 2u);
  EXPECT_TRUE(world.nodes[0]->has("k"));  // left behind until the TTL
  EXPECT_TRUE(world.nodes[1]->has("k"));
}

// redis-plus-plus RedLockMutex: unlock's script goes through the same Redis instance as SET
// (`instance.eval`), so the connection's socket timeout bounds it too: a node cut off after the
// grant costs the release 100 ms (and, the exception leaving unlock, the nodes after it are not
// asked), not an hour.
TEST(ProfileRedisPlusPlusRedLockMutex, UnlockHasTheRequestTimeout) {
  LockWorld world(3, 3);
  auto lock =
      make("redis-plus-plus-redlockmutex", world.client(), 3, {{"request_timeout_ms", 100}});
  ReleaseResult released;
  Instant released_at;
  world.run(
      0,
      [&]() -> Task<void> {
        Grant grant = co_await lock->acquire("k");
        world.partition(0, {0});
        released = co_await lock->release(grant.lease);
        released_at = world.simulator.now();
      }(),
      at_ms(10'000));
  EXPECT_TRUE(released.released);  // the library tells the caller nothing
  EXPECT_EQ(released.nodes, 0u);
  EXPECT_GE(released_at, Instant::from_ms(100));
  EXPECT_LT(released_at, Instant::from_ms(150));
  EXPECT_TRUE(world.nodes[1]->has("k"));  // left until its TTL
}

// redis-plus-plus RedMutex: the LockWatcher extends every ttl/2 and tells the holder on failure.
TEST(ProfileRedisPlusPlusRedMutex, WatcherEveryHalfTtlTellsOnLoss) {
  LockWorld world(3, 3);
  auto lock = make("redis-plus-plus-redmutex", world.client(), 3, {});
  ASSERT_TRUE(lock->has_watchdog());
  std::shared_ptr<Lease> lease;
  int64_t lost_at = -1;
  auto body = [&]() -> Task<void> {
    Grant grant = co_await lock->acquire("k");
    lease = grant.lease;
    lease->on_lost = [&](const Lease&) { lost_at = world.now_ms(); };
    world.client().spawn(lock->run_watchdog(lease));
  };
  world.run(0, body(), at_ms(5'000));
  EXPECT_EQ(lease->renewals, 3u);  // at 1.5, 3 and 4.5 s
  for (auto* node : world.nodes)
    node->flush();
  world.simulator.run(at_ms(8'000));
  EXPECT_TRUE(lease->lost);
  EXPECT_GT(lost_at, 6'000);
  EXPECT_LT(lost_at, 6'100);
}

// aioredlock: asyncio.gather waits for every node, so one slow node fails every attempt's
// validity although a fast majority had accepted (the family returning at quorum succeeds).
TEST(ProfileAioredlock, GatherWaitsForASlowNode) {
  for (const std::string name : {"aioredlock", "redlock"}) {
    SCOPED_TRACE(name);
    LockWorld world(3, 3);
    world.simulator.network().set_link_delay(world.node_id(2), world.client().id(),
                                             DelaySpec::fixed(Duration::from_ms(11'000)));
    LockParams params;
    if (name == "aioredlock") params["auto_extend"] = false;
    if (name == "redlock") params["wait"] = std::string("quorum");
    auto lock = make(name, world.client(), 3, params);
    Grant grant;
    world.run(
        0, [&]() -> Task<void> { grant = co_await lock->acquire("k"); }(), at_ms(120'000));
    EXPECT_EQ(grant.acquired, name == "redlock");
    if (name == "aioredlock") {
      EXPECT_EQ(grant.failure, "validity");
    }
  }
}

// aioredlock is the library's own `Aioredlock` (AioredlockClient), with only the rows it has:
// lock and extend are the one loop `_set_lock`, so retry_count bounds an extension's tries as
// it bounds an acquisition's, and the final failure of each unsets the key.
TEST(ProfileAioredlock, IsTheLibrarysOwnLoopWithItsOwnParameters) {
  LockWorld world(3, 3);
  auto lock = make("aioredlock", world.client(), 3, {{"auto_extend", false}, {"retry_count", 1}});
  const auto* aioredlock =
      dynamic_cast<const profiles::LibraryClient<profiles::AioredlockOptions>*>(lock.get());
  ASSERT_NE(aioredlock, nullptr);
  EXPECT_EQ(aioredlock->options().retry_count, 1);
  for (const char* absent : {"fan_out", "wait", "extend_quorum"}) {
    EXPECT_EQ(check_lock_params("aioredlock", {{absent, int64_t{0}}}),
              std::string(absent) + ": not an override of this lock");
  }
  world.attach_notes(*lock, "c0");
  ExtendResult extended;
  world.run(
      0,
      [&]() -> Task<void> {
        Grant grant = co_await lock->acquire("k");
        EXPECT_TRUE(grant.acquired);
        for (std::size_t n : {1, 2})
          world.nodes[n]->set_raw("k", "other", 60'000);  // taken over on a majority
        extended = co_await lock->extend(grant.lease);
      }(),
      at_ms(5'000));
  EXPECT_FALSE(extended.extended);
  std::size_t extend_tries = 0;
  for (const std::string& note : world.notes)
    extend_tries += note.find("extend:") != std::string::npos ? 1 : 0;
  EXPECT_EQ(extend_tries, 2u);             // retry_count 1: two tries, as for lock()
  EXPECT_FALSE(world.nodes[0]->has("k"));  // the failure unset our key
}

// aioredlock: `except LockError: continue` — no unlock between tries, and the same identifier,
// so the keys a failed try set are still there (and still ours) when the next try starts.
TEST(ProfileAioredlock, NoUnlockBetweenTries) {
  LockWorld world(3, 3);
  for (std::size_t n : {1, 2})
    world.nodes[n]->set_raw("k", "other", 300);
  auto lock = make("aioredlock", world.client(), 3, {});
  Grant grant;
  bool kept_between_tries = false;
  // A named closure: the coroutine refers to it after spawn() returns.
  const auto look = [&]() -> Task<void> {
    co_await world.client().sleep(Duration::from_ms(60));  // after try 1, before try 2
    kept_between_tries = world.nodes[0]->has("k");
  };
  world.client().spawn(look());
  world.run(
      0, [&]() -> Task<void> { grant = co_await lock->acquire("k"); }(), at_ms(2'000));
  EXPECT_TRUE(kept_between_tries);
  ASSERT_TRUE(grant.acquired);
  EXPECT_GT(grant.attempts, 1u);
}

// Redisson RLock: one replica acknowledgement is enough even with two replicas.
TEST(ProfileRedissonRLock, OneReplicaAckIsEnough) {
  for (const std::string name : {"redisson-rlock", "wait-acked-hash"}) {
    SCOPED_TRACE(name);
    LockWorld world(3, 1);
    world.nodes[0]->wait_acks = 1;
    auto lock = make(name, world.client(), {{"replicas", 2}});
    Grant grant;
    world.run(
        0, [&]() -> Task<void> { grant = co_await lock->acquire("k"); }(), at_ms(5'000));
    EXPECT_EQ(grant.acquired, name == "redisson-rlock");  // the family requires both replicas
  }
}

// Redisson RLock: an unlock that fails (here: lost in a partition) still stops the watchdog, so
// the key expires a lease after the last renewal instead of being renewed for ever.
TEST(ProfileRedissonRLock, FailedUnlockStopsTheWatchdog) {
  LockWorld world(3, 1);
  auto lock = make("redisson-rlock", world.client(),
                   {{"replicas", 0}, {"lease_ms", 3000}, {"request_timeout_ms", 500}});
  ReleaseResult released;
  world.run(
      0,
      [&]() -> Task<void> {
        Grant grant = co_await lock->acquire("k");
        world.client().spawn(lock->run_watchdog(grant.lease));
        co_await world.client().sleep(Duration::from_ms(1'500));
        PartitionRule cut{.side_a = {world.client().id()},
                          .side_b = {world.node_id(0)},
                          .start = world.simulator.now(),
                          .end = world.simulator.now() + Duration::from_ms(1'000)};
        world.simulator.network().add_partition(cut);
        released = co_await lock->release(grant.lease);
      }(),
      at_ms(20'000));
  EXPECT_FALSE(released.released);
  EXPECT_FALSE(world.nodes[0]->has("k"));  // expired: nobody renewed it after the unlock
}

// RedissonRedLock: no elapsed-time check when the loop breaks on a failure past the quorum. The
// third master answers "busy" after a 3 s round trip; the two sub-locks taken before it (leases
// of twice lock(1000 ms)'s drawn wait time, under 2 s) have expired by then, and the grant is
// made all the same.
TEST(ProfileRedissonRedLock, SlowFailureAfterAQuorumReturnsWithExpiredSubLocks) {
  LockWorld world(3, 3);
  world.simulator.network().set_link_delay(world.client().id(), world.node_id(2),
                                           DelaySpec::fixed(Duration::from_ms(1'500)));
  world.simulator.network().set_link_delay(world.node_id(2), world.client().id(),
                                           DelaySpec::fixed(Duration::from_ms(1'500)));
  world.nodes[2]->execute(make_command("HSET", "k", "someone:1", "1"));
  world.nodes[2]->execute(make_command("PEXPIRE", "k", "60000"));
  auto lock = make("redisson-redlock", world.client(), 3, {{"lease_ms", 1000}});
  Grant grant;
  bool first_held_at_grant = true;
  world.run(
      0,
      [&]() -> Task<void> {
        grant = co_await lock->acquire("k");
        first_held_at_grant = world.nodes[0]->has("k");
      }(),
      at_ms(10'000));
  ASSERT_TRUE(grant.acquired);
  EXPECT_EQ(grant.nodes_locked, 2u);
  EXPECT_FALSE(first_held_at_grant);
}

// RedissonRedLock lock(leaseTime): tryLock's wait time is below the lease (drawn in [lease/2,
// lease)), and a tryLock whose remaining time is spent unlocks what it took and fails, even with
// every sub-lock taken: with 700 ms links to two masters a 1 s lease is never granted.
TEST(ProfileRedissonRedLock, TryLockPastItsWaitTimeUnlocksAndFails) {
  LockWorld world(3, 3);
  for (std::size_t n : {1, 2}) {
    world.simulator.network().set_link_delay(world.client().id(), world.node_id(n),
                                             DelaySpec::fixed(Duration::from_ms(700)));
  }
  auto lock = make("redisson-redlock", world.client(), 3, {{"lease_ms", 1000}});
  bool returned = false;
  world.run(
      0,
      [&]() -> Task<void> {
        co_await lock->acquire("k");
        returned = true;
      }(),
      at_ms(20'000));
  EXPECT_FALSE(returned);  // lockInterruptibly keeps calling tryLock
  EXPECT_FALSE(world.nodes[0]->has("k") && world.nodes[1]->has("k") && world.nodes[2]->has("k"));
}

// RedissonRedLock lock(): a failure past failedLocksLimit unlocks, resets the iterator and goes
// on with the same remainTime (not a fresh 4.5 s). N2 and N3 are busy until 5 s: each waits its
// 1.5 s share and fails, N1 is taken again at 3 s, N2 waits the 1.5 s left and the first call
// fails at 4.5 s; the second takes all three as they free up at 5 s. (Ending the first call at
// 3 s and starting afresh, N3 would be the one failure allowed: granted with two.)
TEST(ProfileRedissonRedLock, FailurePastTheLimitRestartsTheLoopWithTheSameRemainingTime) {
  LockWorld world(3, 3);
  for (std::size_t n : {1, 2}) {
    world.nodes[n]->execute(make_command("HSET", "k", "someone:1", "1"));
    world.nodes[n]->execute(make_command("PEXPIRE", "k", "5000"));
  }
  auto lock = make("redisson-redlock", world.client(), 3, {});
  const auto [grant, granted_at, granted_ms] = world.acquire(0, *lock, "k", at_ms(20'000));
  ASSERT_TRUE(grant.acquired);
  EXPECT_EQ(grant.attempts, 2u);  // two tryLock calls
  EXPECT_EQ(grant.nodes_locked, 3u);
  EXPECT_GE(granted_at, Instant::from_ms(5'000));
  EXPECT_LT(granted_at, Instant::from_ms(5'020));
}

// RedissonRedLock: a failure once a quorum is held ends tryLock with success, and the sub-locks
// after it are never tried.
TEST(ProfileRedissonRedLock, FailureAfterAQuorumStopsTheRound) {
  LockWorld world(3, 5);
  world.nodes[3]->set_raw("k", "other", -1);  // a hash lock of someone else's would refuse too
  auto lock = make("redisson-redlock", world.client(), 5, {});
  const Grant grant = world.acquire(0, *lock, "k", at_ms(10'000)).grant;
  ASSERT_TRUE(grant.acquired);
  EXPECT_EQ(grant.nodes_locked, 3u);
  EXPECT_FALSE(world.nodes[4]->has("k"));  // never asked
}

// RedissonRedLock lock(): tryLock(3 x 1500 ms) waits on a busy sub-lock up to its share of the
// wait time (remainTime / N = 1500 ms), retrying after the holder's PTTL, before counting it as
// failed; the other two sub-locks then make the quorum.
TEST(ProfileRedissonRedLock, BusySubLockWaitsItsShareOfTheWaitTime) {
  LockWorld world(3, 3);
  world.nodes[0]->execute(make_command("HSET", "k", "someone:1", "1"));
  world.nodes[0]->execute(make_command("PEXPIRE", "k", "30000"));
  auto lock = make("redisson-redlock", world.client(), 3, {});
  const auto [grant, granted_at, granted_ms] = world.acquire(0, *lock, "k", at_ms(10'000));
  ASSERT_TRUE(grant.acquired);
  EXPECT_EQ(grant.nodes_locked, 2u);
  EXPECT_GE(granted_at, Instant::from_ms(1'500));
  EXPECT_LT(granted_at, Instant::from_ms(1'520));
}

// RedissonRedLock lock(1 ms) and lock(0): Java draws nextLong(0, 1) = 0 ms of wait time for the
// first (a half-millisecond origin made the draw's span wrap and divide by zero: SIGFPE), and
// reads the second as lock(), the watchdog with its 30 s sub-lock lease (a PEXPIRE 0 deleted
// every sub-lock as it was taken).
TEST(ProfileRedissonRedLock, OneAndZeroMillisecondLeasesAreTheLibrarys) {
  for (const int64_t lease : {1, 0}) {
    LockWorld world(3, 3);
    auto lock = make("redisson-redlock", world.client(), 3, {{"lease_ms", lease}});
    Grant grant;
    world.run(
        0, [&]() -> Task<void> { grant = co_await lock->acquire("k"); }(), at_ms(100));
    ASSERT_TRUE(grant.acquired) << "lease_ms " << lease;
    if (lease == 0) {
      EXPECT_TRUE(lock->has_watchdog());
      for (std::size_t n = 0; n < 3; ++n) {
        const int64_t pttl = world.nodes[n]->execute(make_command("PTTL", "k")).integer;
        EXPECT_GT(pttl, 29'000) << "N" << n + 1;
      }
    }
  }
}

// RFencedLock: the token is INCRed in the acquire script, re-entries included.
TEST(ProfileRedissonFencedLock, ReentryBumpsTheToken) {
  LockWorld world(3, 1);
  auto lock = make("redisson-fencedlock", world.client(), {{"replicas", 0}});
  Grant first;
  Grant second;
  world.run(
      0,
      [&]() -> Task<void> {
        first = co_await lock->acquire("k");
        second = co_await lock->acquire("k");
      }(),
      at_ms(1'000));
  ASSERT_TRUE(first.acquired && second.acquired);
  EXPECT_EQ(first.lease->fencing_token, 1);
  EXPECT_EQ(second.lease->fencing_token, 2);
  EXPECT_EQ(world.nodes[0]->get("redisson_lock_token:{k}"), "2");
}

// redis-py Lock: timeout=None sets no TTL; with a timeout, extend ADDS to the remaining PTTL.
TEST(ProfileRedisPyLock, NoTtlByDefaultAndAdditiveExtend) {
  LockWorld world(3, 1);
  auto plain = make("redis-py-lock", world.client());
  auto timed = make("redis-py-lock", world.client(), {{"ttl_ms", 10000}});
  int64_t plain_pttl = 0;
  int64_t extended_pttl = 0;
  int64_t read_at = 0;
  world.run(
      0,
      [&]() -> Task<void> {
        Grant a = co_await plain->acquire("a");
        plain_pttl = world.nodes[0]->pttl("a");
        Grant b = co_await timed->acquire("b");
        co_await world.client().sleep(Duration::from_ms(4'000));
        co_await timed->extend(b.lease);
        extended_pttl = world.nodes[0]->pttl("b");
        read_at = world.now_ms();
      }(),
      at_ms(5'000));
  EXPECT_EQ(plain_pttl, -1);
  // b was set at 3 ms to expire at 10 003 ms; the extend added 10 s to what was left.
  EXPECT_EQ(extended_pttl, 10'003 + 10'000 - read_at);
}

// python-redis-lock: the renewal thread dies silently when its extend fails.
TEST(ProfilePythonRedisLock, RenewalDiesSilently) {
  LockWorld world(3, 1);
  auto lock = make("python-redis-lock", world.client(), {{"ttl_ms", 3000}, {"auto_extend", true}});
  std::shared_ptr<Lease> lease;
  auto body = [&]() -> Task<void> {
    Grant grant = co_await lock->acquire("k");
    lease = grant.lease;
    world.client().spawn(lock->run_watchdog(lease));
  };
  world.run(0, body(), at_ms(5'000));
  EXPECT_EQ(lease->resource, "lock:k");
  EXPECT_EQ(lease->renewals, 2u);  // every 2 s
  world.nodes[0]->flush();
  world.simulator.run(at_ms(10'000));
  EXPECT_FALSE(lease->lost);  // never told
  EXPECT_EQ(lease->renewals, 2u);
  EXPECT_EQ(world.client().live_task_count(), 0u);  // the renewal is gone
}

// redsync before PR #38/#61: Extend "succeeded" on a lock that expired and was taken by B.
TEST(ProfileRedsyncV4, HistoricalStatusBugExtendsALostLock) {
  for (const bool bug : {true, false}) {
    LockWorld world(3, 3);
    auto lock = make("redsync-v4", world.client(), 3, {{"status_bug", bug}});
    ExtendResult extended;
    world.run(
        0,
        [&]() -> Task<void> {
          Grant grant = co_await lock->acquire("k");
          co_await world.client().sleep(Duration::from_ms(9'000));  // expired; B takes every node
          for (auto* node : world.nodes)
            node->set_raw("k", "b", 8'000);
          extended = co_await lock->extend(grant.lease);
        }(),
        at_ms(10'000));
    EXPECT_EQ(extended.extended, bug);
    EXPECT_EQ(world.nodes[0]->get("k"), "b");
  }
}

// redsync WithSetNXOnExtend: an extend re-populates a node that restarted empty.
TEST(ProfileRedsyncV4, SetNxOnExtendRepopulatesARestartedNode) {
  for (const bool set_nx : {true, false}) {
    LockWorld world(3, 3);
    auto lock = make("redsync-v4", world.client(), 3, {{"set_nx_on_extend", set_nx}});
    ExtendResult extended;
    world.run(
        0,
        [&]() -> Task<void> {
          Grant grant = co_await lock->acquire("k");
          world.nodes[2]->flush();
          extended = co_await lock->extend(grant.lease);
        }(),
        at_ms(1'000));
    EXPECT_TRUE(extended.extended);
    EXPECT_EQ(extended.nodes, set_nx ? 3u : 2u);
    EXPECT_EQ(world.nodes[2]->has("k"), set_nx);
  }
}

// redlock-py: `retry_count or default` turns a configured 0 into 3 tries (issue #24).
TEST(ProfileRedlockPy, ZeroRetryCountFallsBackToTheDefault) {
  LockWorld world(3, 3);
  for (std::size_t n : {1, 2})
    world.nodes[n]->set_raw("k", "other", 60'000);
  auto lock = make("redlock-py", world.client(), 3, {{"retry_count", 0}});
  const Grant grant = world.acquire(0, *lock, "k", at_ms(5'000)).grant;
  EXPECT_FALSE(grant.acquired);
  EXPECT_EQ(grant.attempts, 3u);
}

// redlock-py's unlock: `unlock_instance` swallows a server's error, so a server cut off after
// the grant (its EVAL times out after the model's hour) does not stop the release: the servers
// after it still delete the key (redis-plus-plus's unlock, UnlockHasTheRequestTimeout above,
// stops there instead). The TTL outlasts that hour, so the keys are still there to delete.
TEST(ProfileRedlockPy, UnlockGoesOnPastAServerThatFails) {
  LockWorld world(3, 3);
  auto lock = make("redlock-py", world.client(), 3, {{"ttl_ms", 10'000'000}});
  Grant grant;
  ReleaseResult released;
  world.run(
      0,
      [&]() -> Task<void> {
        grant = co_await lock->acquire("k");
        world.partition(0, {0});
        released = co_await lock->release(grant.lease);
      }(),
      at_ms(5'000'000));
  ASSERT_TRUE(grant.acquired) << grant.failure;
  EXPECT_TRUE(released.released);
  EXPECT_EQ(released.nodes, 2u);
  EXPECT_TRUE(world.nodes[0]->has("k"));  // cut off: left until its TTL
  EXPECT_FALSE(world.nodes[1]->has("k"));
  EXPECT_FALSE(world.nodes[2]->has("k"));
}

// redlock-py is the library's own `Redlock.lock` (RedlockPyClient), with only the rows that
// class has: each try SETs the servers in turn, then runs the unlock script on every server,
// then sleeps retry_delay, after the last try too.
TEST(ProfileRedlockPy, IsTheLibrarysOwnLoopWithItsOwnParameters) {
  LockWorld world(3, 3);
  for (std::size_t n : {1, 2})
    world.nodes[n]->set_raw("k", "other", 60'000);
  auto lock = make("redlock-py", world.client(), 3, {});
  const auto* redlock =
      dynamic_cast<const profiles::LibraryClient<profiles::RedlockPyOptions>*>(lock.get());
  ASSERT_NE(redlock, nullptr);
  EXPECT_EQ(redlock->options().node_count, 3u);
  for (const char* absent : {"fan_out", "wait", "extend_quorum"}) {
    EXPECT_EQ(check_lock_params("redlock-py", {{absent, int64_t{0}}}),
              std::string(absent) + ": not an override of this lock");
  }
  const auto [grant, done_at, done_ms] = world.acquire(0, *lock, "k", at_ms(5'000));
  EXPECT_FALSE(grant.acquired);
  EXPECT_EQ(grant.attempts, 3u);
  std::vector<std::string> sent;
  for (const Command& c : world.nodes[0]->log)
    sent.push_back(c[0]);
  EXPECT_EQ(sent, (std::vector<std::string>{"SET", "EVAL", "SET", "EVAL", "SET", "EVAL"}));
  EXPECT_GE(done_ms, 600);  // three sleeps of 0.2 s: time.sleep follows the last try as well
}

// pottery is the library's own `Redlock` (PotteryClient), with only the rows that class has:
// every __acquire_masters draws a new `_uuid`, and the release after a failed try deletes that
// try's value.
TEST(ProfilePottery, IsTheLibrarysOwnLoopWithItsOwnParameters) {
  LockWorld world(3, 3);
  for (std::size_t n : {1, 2})
    world.nodes[n]->set_raw("k", "other", 60'000);
  auto lock = make("pottery", world.client(), 3, {{"retry_count", 2}});
  const auto* redlock =
      dynamic_cast<const profiles::LibraryClient<profiles::PotteryOptions>*>(lock.get());
  ASSERT_NE(redlock, nullptr);
  EXPECT_EQ(redlock->options().num_extensions, 3);
  for (const char* absent : {"fan_out", "wait", "extend_quorum"}) {
    EXPECT_EQ(check_lock_params("pottery", {{absent, int64_t{0}}}),
              std::string(absent) + ": not an override of this lock");
  }
  const Grant grant = world.acquire(0, *lock, "k", at_ms(5'000)).grant;
  EXPECT_FALSE(grant.acquired);
  EXPECT_EQ(grant.attempts, 3u);
  std::vector<std::string> set_values;
  std::vector<std::string> released_values;
  for (const Command& c : world.nodes[0]->log) {
    if (c[0] == "SET") set_values.push_back(c[2]);
    if (c[0] == "EVAL") released_values.push_back(c.back());
  }
  ASSERT_EQ(set_values.size(), 3u);
  EXPECT_EQ(std::set<std::string>(set_values.begin(), set_values.end()).size(), 3u);
  EXPECT_EQ(released_values, set_values);  // each try releases its own uuid
}

// pottery: only successful extensions count toward the three: one that fails (a partition
// keeps it from a majority) leaves three more.
TEST(ProfilePottery, FailedExtensionsDoNotCount) {
  LockWorld world(3, 3);
  auto lock = make("pottery", world.client(), 3, {{"request_timeout_ms", 50}});
  std::vector<ExtendResult> results;
  world.run(
      0,
      [&]() -> Task<void> {
        Grant grant = co_await lock->acquire("k");
        PartitionRule cut{.side_a = {world.client().id()},
                          .side_b = {world.node_id(1), world.node_id(2)},
                          .start = world.simulator.now(),
                          .end = world.simulator.now() + Duration::from_ms(100)};
        world.simulator.network().add_partition(cut);
        results.push_back(co_await lock->extend(grant.lease));
        co_await world.client().sleep(Duration::from_ms(200));
        for (int i = 0; i < 4; ++i)
          results.push_back(co_await lock->extend(grant.lease));
      }(),
      at_ms(5'000));
  ASSERT_EQ(results.size(), 5u);
  EXPECT_FALSE(results[0].extended);
  for (int i = 1; i < 4; ++i)
    EXPECT_TRUE(results[i].extended) << i;
  EXPECT_EQ(results[4].failure, "too many extensions");
}

// pottery: as_completed returns early only on success. A try that cannot reach a majority
// waits for its slowest master; a release returns once a majority released.
TEST(ProfilePottery, FailedTryWaitsForEveryMasterReleaseReturnsAtMajority) {
  LockWorld world(3, 3);
  for (std::size_t n : {1, 2})
    world.nodes[n]->set_raw("k", "other", 250);
  world.simulator.network().set_link_delay(world.client().id(), world.node_id(2),
                                           DelaySpec::fixed(Duration::from_ms(100)));
  auto lock = make("pottery", world.client(), 3, {});
  world.attach_notes(*lock, "c0");
  int64_t released_at = -1;
  int64_t release_started = -1;
  world.run(
      0,
      [&]() -> Task<void> {
        Grant grant = co_await lock->acquire("k");
        release_started = world.now_ms();
        co_await lock->release(grant.lease);
        released_at = world.now_ms();
      }(),
      at_ms(5'000));
  ASSERT_FALSE(world.notes.empty());
  // Try 1: node 0 accepts and node 1 refuses at once, node 2 (slow) refuses at 101 ms.
  EXPECT_EQ(world.notes.front().substr(0, world.notes.front().find(' ')), "101");
  EXPECT_EQ(released_at - release_started, 2);  // nodes 0 and 1; node 2's reply is not awaited
}

// pottery: a second acquire on the same instance replaces `_uuid`, so the first grant can no
// longer be released: its keys stay until the TTL (bug list item 28).
TEST(ProfilePottery, ReacquireOnTheSameInstanceStrandsTheFirstGrant) {
  LockWorld world(3, 3);
  auto lock = make("pottery", world.client(), 3, {{"retry_count", 0}});
  ReleaseResult released;
  Grant first;
  world.run(
      0,
      [&]() -> Task<void> {
        first = co_await lock->acquire("k");
        Grant again = co_await lock->acquire("k");  // refused: the key is held (by us)
        EXPECT_FALSE(again.acquired);
        released = co_await lock->release(first.lease);
      }(),
      at_ms(1'000));
  ASSERT_TRUE(first.acquired);
  EXPECT_FALSE(released.released);
  EXPECT_EQ(world.nodes_holding("k", first.lease->value), 3u);
}

// redis-plus-plus with scripting=false (RedMutexTx): extend "succeeds" on keys now owned by B.
TEST(ProfileRedisPlusPlusRedLockMutex, ScriptingOffExtendSucceedsWithoutOwnership) {
  for (const bool scripting : {false, true}) {
    LockWorld world(3, 3);
    auto lock = make("redis-plus-plus-redlockmutex", world.client(), 3, {{"scripting", scripting}});
    ExtendResult extended;
    world.run(
        0,
        [&]() -> Task<void> {
          Grant grant = co_await lock->acquire("k");
          for (auto* node : world.nodes)
            node->set_raw("k", "b", 60'000);
          extended = co_await lock->extend(grant.lease);
        }(),
        at_ms(1'000));
    EXPECT_EQ(extended.extended, !scripting);
    EXPECT_EQ(world.nodes[0]->get("k"), "b");
  }
}

// aioredlock: watchdogs keyed by resource. A's lock is lost and B (same Aioredlock) takes the
// resource; A's failing watchdog unlocks, which cancels B's watchdog: B's keys expire while B
// holds, and nobody tells B (bug list item 27).
TEST(ProfileAioredlock, WatchdogMapKeyedByResourceCancelsAnotherTasksRenewal) {
  LockWorld world(3, 3);
  auto lock = make("aioredlock", world.client(), 3, {});
  std::shared_ptr<Lease> a;
  std::shared_ptr<Lease> b;
  auto task_a = [&]() -> Task<void> {
    a = (co_await lock->acquire("r")).lease;
    world.client().spawn(lock->run_watchdog(a));
  };
  auto task_b = [&]() -> Task<void> {
    co_await world.client().sleep(Duration::from_ms(2'000));
    b = (co_await lock->acquire("r")).lease;
    world.client().spawn(lock->run_watchdog(b));
  };
  world.client().spawn(task_a());
  world.client().spawn(task_b());
  world.simulator.schedule_action(at_ms(1'000), [&] {
    for (auto* node : world.nodes)
      node->flush();  // A's keys vanish (a restart, say)
  });
  world.simulator.run(at_ms(11'000));
  ASSERT_TRUE(a && b);
  EXPECT_TRUE(b->watchdog_cancelled);
  EXPECT_EQ(world.nodes_holding("r", b->value), 3u);
  world.simulator.run(at_ms(13'000));
  EXPECT_EQ(world.nodes_holding("r", b->value), 0u);  // expired at ~12 s, never renewed
  EXPECT_FALSE(b->lost);
  EXPECT_FALSE(b->released);
}

}  // namespace
}  // namespace redlock_sim
