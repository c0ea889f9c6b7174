// Simulation tests of the lock families: acquire, release, extend and their failure paths.
#include <gtest/gtest.h>

#include "lock_impls/families/fenced.hpp"
#include "lock_impls/families/hash_lock.hpp"
#include "lock_impls/families/redlock.hpp"
#include "lock_impls/families/single_instance.hpp"
#include "lock_impls/families/watchdog.hpp"
#include "lock_impls/zoo/zoo.hpp"
#include "sim/kernel/server_process.hpp"
#include "tests/unit/lock_world.hpp"

namespace redlock_sim {
namespace {

using testing::FakeRedis;  // the logging RedisNode of lock_world.hpp
using testing::LockWorld;

Instant mono_ms(int64_t ms) {
  return Instant::from_ms(ms);
}

// ---------------------------------------------------------------- Redlock

// All five nodes up: the catalogue's BASE-F numbers (T2 = 2 ms, deadline T1 + 10 000 - 102).
TEST(RedlockFamily, AcquiresOnAllNodesWithCatalogueValidity) {
  LockWorld world(1);
  RedlockClient lock(world.client(), zoo::redlock_reference());
  Grant grant;
  // The nodes' active-expiry timers keep a run busy until keys expire: stop at 50 ms.
  world.run(
      0, [&]() -> Task<void> { grant = co_await lock.acquire("k"); }(), mono_ms(50));
  ASSERT_TRUE(grant.acquired);
  EXPECT_EQ(grant.nodes_locked, 5u);
  EXPECT_EQ(grant.attempts, 1u);
  EXPECT_EQ(grant.lease->deadline, (Deadline{ClockKind::monotonic, mono_ms(9'898)}));
  EXPECT_EQ(world.nodes_holding("k", grant.lease->value), 5u);
  // Set at 1 ms, read at 50 ms.
  EXPECT_EQ(world.nodes[0]->pttl("k"), 10'001 - 50);
}

// Only three of five reachable: acquired at the 50 ms timeout (BASE-P), the same deadline.
TEST(RedlockFamily, PartialQuorumAcquiresAfterTimeouts) {
  LockWorld world(1);
  world.partition(0, {3, 4});
  RedlockClient lock(world.client(), zoo::redlock_reference());
  Grant grant;
  Instant done;
  world.run(0, [&]() -> Task<void> {
    grant = co_await lock.acquire("k");
    done = world.simulator.now();
  }());
  ASSERT_TRUE(grant.acquired);
  EXPECT_EQ(grant.nodes_locked, 3u);
  EXPECT_EQ(done, mono_ms(50));
  EXPECT_EQ(grant.lease->deadline.at, mono_ms(9'898));
}

// Two of five: every attempt fails, each one releases its minority keys, 4 tries in all.
TEST(RedlockFamily, MinorityFailsReleasesAndRetries) {
  LockWorld world(1);
  world.partition(0, {2, 3, 4});
  RedlockClient lock(world.client(), zoo::redlock_reference());
  Grant grant;
  world.run(0, [&]() -> Task<void> { grant = co_await lock.acquire("k"); }());
  EXPECT_FALSE(grant.acquired);
  EXPECT_EQ(grant.failure, "taken");
  EXPECT_EQ(grant.attempts, 4u);
  EXPECT_FALSE(world.nodes[0]->has("k"));
  EXPECT_FALSE(world.nodes[1]->has("k"));
}

// With a token per attempt, each try's SET carries its own token (the request is built again
// when the token changes) and the lease holds the winning try's: the first try reaches two nodes
// (cut from the others until 100 ms), the second, after the 200 ms retry delay, all five.
TEST(RedlockFamily, TokenPerAttemptSendsEachTrysOwnToken) {
  LockWorld world(1);
  PartitionRule rule;
  rule.side_a = {world.client().id()};
  rule.side_b = {world.node_id(2), world.node_id(3), world.node_id(4)};
  rule.end = mono_ms(100);
  world.simulator.network().add_partition(rule);
  RedlockOptions options = zoo::redlock_reference();
  options.token_per_attempt = true;
  RedlockClient lock(world.client(), options);
  Grant grant;
  world.run(
      0, [&]() -> Task<void> { grant = co_await lock.acquire("k"); }(), mono_ms(1'000));
  ASSERT_TRUE(grant.acquired);
  EXPECT_EQ(grant.attempts, 2u);
  std::vector<std::string> set_values;
  for (const Command& command : world.nodes[0]->log) {
    if (command.at(0) == "SET") set_values.push_back(command.at(2));
  }
  ASSERT_EQ(set_values.size(), 2u);
  EXPECT_NE(set_values[0], set_values[1]);
  EXPECT_EQ(set_values[1], grant.lease->value);
  EXPECT_EQ(world.nodes_holding("k", grant.lease->value), 5u);
}

// More nodes than call_all's table of node ids (64): every node gets the SET and the release.
TEST(RedlockFamily, SeventyNodesAcquireAndReleaseOnEveryNode) {
  LockWorld world(1, 70);
  world.partition(0, {69});
  RedlockOptions options = zoo::redlock_reference();
  options.node_count = 70;
  RedlockClient lock(world.client(), options);
  Grant grant;
  ReleaseResult released;
  uint32_t held = 0;
  world.run(
      0,
      [&]() -> Task<void> {
        grant = co_await lock.acquire("k");
        held = world.nodes_holding("k", grant.lease->value);
        released = co_await lock.release(grant.lease);
      }(),
      mono_ms(1'000));
  ASSERT_TRUE(grant.acquired);
  EXPECT_EQ(grant.nodes_locked, 69u);
  EXPECT_EQ(held, 69u);
  EXPECT_EQ(released.nodes, 69u);
  EXPECT_EQ(world.nodes_holding("k", grant.lease->value), 0u);
}

// A SET that timed out still executes later, long after the client gave up; the release the
// client sent behind it on the same connection (TCP is FIFO) follows it and cleans up.
TEST(RedlockFamily, TimedOutSetExecutesLaterAsOrphan) {
  LockWorld world(1);
  for (std::size_t n : {2, 3, 4}) {
    world.simulator.network().add_hold({.from = world.client().id(),
                                        .to = world.node_id(n),
                                        .command = "set",
                                        .active_from = Instant::zero(),
                                        .release_at = mono_ms(5'000)});
  }
  RedlockOptions options = zoo::redlock_reference();
  options.retry_count = 0;
  RedlockClient lock(world.client(), options);
  Grant grant;
  world.run(
      0, [&]() -> Task<void> { grant = co_await lock.acquire("k"); }(), mono_ms(4'000));
  EXPECT_FALSE(grant.acquired);
  EXPECT_EQ(grant.nodes_locked, 2u);
  EXPECT_EQ(world.nodes[2]->commands_seen, 0u);
  world.simulator.run(mono_ms(6'000));
  ASSERT_EQ(world.nodes[2]->log.size(), 2u);  // executed at 5 s, after the client gave up
  EXPECT_EQ(world.nodes[2]->log[0][0], "SET");
  EXPECT_EQ(world.nodes[2]->log[1][0], "EVAL");
  EXPECT_FALSE(world.nodes[2]->has("k"));
}

// Slow links: a majority accepted, but the acquisition took longer than the TTL.
TEST(RedlockFamily, ValidityExhaustedBySlowAcquisition) {
  LockWorld world(1);
  for (std::size_t n = 0; n < 5; ++n) {
    world.simulator.network().set_link_delay(world.node_id(n), world.client().id(),
                                             DelaySpec::fixed(Duration::from_ms(11'000)));
  }
  RedlockOptions options = zoo::redlock_reference();
  options.retry_count = 0;
  options.request_timeout = Duration::from_s(20);
  RedlockClient lock(world.client(), options);
  world.attach_notes(lock, "c0");
  Grant grant;
  world.run(0, [&]() -> Task<void> { grant = co_await lock.acquire("k"); }());
  EXPECT_FALSE(grant.acquired);
  EXPECT_EQ(grant.failure, "validity");
  EXPECT_EQ(grant.nodes_locked, 5u);
  ASSERT_FALSE(world.notes.empty());
  EXPECT_EQ(world.notes[0], "11001 c0: attempt 1: 5/5 nodes, validity -1103 ms");
}

// The retry delays come from the port's seeded randomness: same seed, same schedule.
std::vector<std::string> contended_attempts(uint64_t seed) {
  LockWorld world(seed);
  for (std::size_t n = 0; n < 3; ++n)
    world.nodes[n]->set_raw("k", "other", 60'000);
  RedlockClient lock(world.client(), zoo::redlock_reference());
  world.attach_notes(lock, "c0");
  Grant grant;
  world.run(0, [&]() -> Task<void> { grant = co_await lock.acquire("k"); }());
  EXPECT_FALSE(grant.acquired);
  return world.notes;
}

TEST(RedlockFamily, RetryJitterIsDrawnFromTheSeed) {
  const std::vector<std::string> a = contended_attempts(7);
  EXPECT_EQ(a, contended_attempts(7));
  EXPECT_NE(a, contended_attempts(8));
  ASSERT_EQ(a.size(), 4u);  // 4 attempts: the first at 0 ms, then after drawn delays
  EXPECT_EQ(a[0].substr(0, 2), "2 ");
}

// Extension needs a majority within the validity, and moves the deadline from its own T1.
TEST(RedlockFamily, ExtendNeedsMajorityAndMovesDeadline) {
  LockWorld world(1);
  RedlockClient lock(world.client(), zoo::redlock_reference());
  Grant grant;
  ExtendResult first;
  ExtendResult second;
  world.run(0, [&]() -> Task<void> {
    grant = co_await lock.acquire("k");
    co_await world.client().sleep(Duration::from_ms(5'000));
    first = co_await lock.extend(grant.lease);
    world.partition(0, {0, 1, 2});
    second = co_await lock.extend(grant.lease);
  }());
  ASSERT_TRUE(first.extended);
  EXPECT_EQ(first.deadline.at, mono_ms(5'002 + 9'898));
  EXPECT_EQ(first.nodes, 5u);
  EXPECT_FALSE(second.extended);
  EXPECT_EQ(second.nodes, 2u);
  EXPECT_EQ(grant.lease->deadline.at, mono_ms(5'002 + 9'898));  // unchanged by the failure
}

// The release request is kept and sent again while the token is the same (a failed attempt's
// cleanup, then the lease's release), but each token's releases carry that token: the first
// acquisition's first attempt reaches two nodes (cut from the others until 100 ms) and is cleaned
// up, its second wins; a second acquisition draws a new token, which its release carries.
TEST(RedlockFamily, EachReleaseCarriesItsOwnTokenThoughTheRequestIsKept) {
  LockWorld world(1);
  PartitionRule rule;
  rule.side_a = {world.client().id()};
  rule.side_b = {world.node_id(2), world.node_id(3), world.node_id(4)};
  rule.end = mono_ms(100);
  world.simulator.network().add_partition(rule);
  RedlockClient lock(world.client(), zoo::redlock_reference());
  std::vector<std::string> tokens;
  world.run(
      0,
      [&]() -> Task<void> {
        for (int i = 0; i < 2; ++i) {
          const Grant grant = co_await lock.acquire("k");
          if (!grant.acquired) co_return;
          tokens.push_back(grant.lease->value);
          co_await lock.release(grant.lease);
        }
      }(),
      mono_ms(2'000));
  ASSERT_EQ(tokens.size(), 2u);
  ASSERT_NE(tokens[0], tokens[1]);
  std::vector<std::string> released;  // the value of each release node 0 was sent
  for (const Command& command : world.nodes[0]->log) {
    if (command.at(0) == "EVAL") {
      EXPECT_EQ(command.at(3), "k");
      released.push_back(command.at(4));
    }
  }
  EXPECT_EQ(released, (std::vector<std::string>{tokens[0], tokens[0], tokens[1]}));
  EXPECT_EQ(world.nodes_holding("k", tokens[1]), 0u);
}

// Redlock keeps its last acquire and release requests and writes a new token into them; a
// request for another resource is built anew, so each SET and each release names its own key.
TEST(RedlockFamily, KeptRequestsAreForTheResourceAskedFor) {
  LockWorld world(1);
  RedlockClient lock(world.client(), zoo::redlock_reference());
  std::vector<std::string> tokens;
  world.run(
      0,
      [&]() -> Task<void> {
        for (const char* resource : {"a", "a", "b", "a"}) {
          const Grant grant = co_await lock.acquire(resource);
          if (!grant.acquired) co_return;
          tokens.push_back(grant.lease->value);
          co_await lock.release(grant.lease);
        }
      }(),
      mono_ms(2'000));
  ASSERT_EQ(tokens.size(), 4u);
  std::vector<std::string> set, released;  // "key token" of each SET and release node 0 was sent
  for (const Command& command : world.nodes[0]->log) {
    if (command.at(0) == "SET") set.push_back(command.at(1) + " " + command.at(2));
    if (command.at(0) == "EVAL") released.push_back(command.at(3) + " " + command.at(4));
  }
  const std::vector<std::string> expected{"a " + tokens[0], "a " + tokens[1], "b " + tokens[2],
                                          "a " + tokens[3]};
  EXPECT_EQ(set, expected);
  EXPECT_EQ(released, expected);
}

// A call's argv is built when first asked for and kept (a plain command's at once); asked for by
// EVALSHA after EVAL it is built again, and a key added later drops it.
TEST(Calls, AnArgvIsBuiltOnceAndAnAddedKeyDropsIt) {
  const Script script{.name = "s", .text = "return 1"};
  Call call = make_call(script, "k", {"v"});
  const std::shared_ptr<const Command> eval = call.argv(false);
  EXPECT_EQ(*eval, eval_command(script, false, {"k"}, {"v"}));
  EXPECT_EQ(call.argv(false).get(), eval.get());
  EXPECT_EQ(*call.argv(true), eval_command(script, true, {"k"}, {"v"}));
  call.add_key("k2");
  EXPECT_EQ(*call.argv(true), eval_command(script, true, {"k", "k2"}, {"v"}));
  const Call plain = plain_call(make_command("GET", "k"));
  EXPECT_EQ(plain.argv(true).get(), &plain.plain());
  EXPECT_EQ(plain.plain(), make_command("GET", "k"));
}

// retoken writes the new token into a kept argv that only the call holds (a script's first
// argument, a plain command's word at token_at), and leaves one a request still holds as it was.
TEST(Calls, ARetokenWritesInPlaceOnlyAnArgvNoRequestHolds) {
  const Script script{.name = "s", .text = "return 1"};
  Call call = make_call(script, "k", {"v1", "ttl"});
  const Command* built = call.argv(false).get();
  call.retoken("v2");
  EXPECT_EQ(call.argv(false).get(), built);
  EXPECT_EQ(*call.argv(false), eval_command(script, false, {"k"}, {"v2", "ttl"}));
  const std::shared_ptr<const Command> held = call.argv(false);
  call.retoken("v3");
  EXPECT_EQ(*held, eval_command(script, false, {"k"}, {"v2", "ttl"}));
  EXPECT_EQ(call.args().front(), "v3");
  EXPECT_EQ(*call.argv(false), eval_command(script, false, {"k"}, {"v3", "ttl"}));

  Call plain = plain_call(make_command("SET", "k", "v1", "NX"), 2);
  const std::shared_ptr<const Command> sent = plain.argv(false);
  plain.retoken("v2");
  EXPECT_EQ(*sent, make_command("SET", "k", "v1", "NX"));
  EXPECT_EQ(plain.plain(), make_command("SET", "k", "v2", "NX"));
  const Command* own = &plain.plain();
  plain.retoken("v3");
  EXPECT_EQ(&plain.plain(), own);
  EXPECT_EQ(plain.plain(), make_command("SET", "k", "v3", "NX"));
}

// A parallel round of a plain command is sent once per node even by EVALSHA: a NOSCRIPT error
// reply to it (which no plain command gets from Redis) is its outcome, not a cause to send EVAL;
// a script's round by EVALSHA sends EVAL to the nodes that answer NOSCRIPT.
TEST(Calls, OnlyAScriptsRoundSendsEvalAfterNoscript) {
  Simulator simulator(3);
  std::vector<ProcessId> ids;
  std::vector<ServerProcess*> servers;
  const ServerProcess::Handler noscript = [](ServerProcess&, const Message& request) {
    if (request.command().at(0) == "EVAL") return Reply::integer_reply(1);
    return Reply::error("NOSCRIPT No matching script. Please use EVAL.");
  };
  for (int i = 0; i < 3; ++i) {
    servers.push_back(&simulator.add_process<ServerProcess>("n" + std::to_string(i), noscript));
    ids.push_back(servers.back()->id());
  }
  auto& client = simulator.add_process<TaskProcess>("client");
  client.set_endpoints(ids);
  const Script script{.name = "s", .text = "return 1"};
  std::vector<Outcome> plain;
  std::vector<Outcome> scripted;
  auto body = [&]() -> Task<void> {
    const Call get = plain_call(make_command("GET", "k"));
    plain =
        co_await call_all(client, 3, get, FanOut::parallel, {}, Duration::from_ms(10), true, false);
    const Call call = make_call(script, "k", {"v"});
    scripted = co_await call_all(client, 3, call, FanOut::parallel, {}, Duration::from_ms(10), true,
                                 false);
  };
  client.spawn(body());
  simulator.run();
  ASSERT_EQ(plain.size(), 3u);
  ASSERT_EQ(scripted.size(), 3u);
  for (std::size_t i = 0; i < 3; ++i) {
    EXPECT_TRUE(is_noscript(plain[i]));
    EXPECT_TRUE(scripted[i].reply.is_integer(1));
    EXPECT_EQ(servers[i]->requests_served(), 3u);  // GET, EVALSHA, EVAL
  }
}

// Release deletes only our own keys: a node where another client's key sits keeps it.
TEST(RedlockFamily, ReleaseDeletesOnlyOurKeys) {
  LockWorld world(1);
  world.partition(0, {4});
  RedlockClient lock(world.client(), zoo::redlock_reference());
  ReleaseResult released;
  world.run(
      0,
      [&]() -> Task<void> {
        Grant grant = co_await lock.acquire("k");
        world.nodes[4]->set_raw("k", "other", 60'000);
        released = co_await lock.release(grant.lease);
      }(),
      mono_ms(1'000));
  EXPECT_TRUE(released.released);
  EXPECT_EQ(released.nodes, 4u);
  EXPECT_EQ(world.nodes[4]->get("k"), "other");
  EXPECT_FALSE(world.nodes[0]->has("k"));
}

// Sequential fan-out visits nodes one after another: five round trips of 2 ms.
TEST(RedlockFamily, SequentialFanOutTakesOneRoundTripPerNode) {
  LockWorld world(1);
  RedlockOptions options = zoo::redlock_reference();
  options.fan_out = FanOut::sequential;
  RedlockClient lock(world.client(), options);
  Instant done;
  world.run(0, [&]() -> Task<void> {
    Grant grant = co_await lock.acquire("k");
    EXPECT_TRUE(grant.acquired);
    done = world.simulator.now();
  }());
  EXPECT_EQ(done, mono_ms(10));
}

// Return-at-quorum resumes after the third reply; the slow nodes still get the SET.
TEST(RedlockFamily, ReturnAtQuorumDoesNotWaitForSlowNodes) {
  LockWorld world(1);
  for (std::size_t n : {3, 4}) {
    world.simulator.network().set_link_delay(world.client().id(), world.node_id(n),
                                             DelaySpec::fixed(Duration::from_ms(30)));
  }
  RedlockOptions options = zoo::redlock_reference();
  options.wait = FanOutMode::return_at_quorum;
  RedlockClient lock(world.client(), options);
  Instant done;
  Grant grant;
  world.run(
      0,
      [&]() -> Task<void> {
        grant = co_await lock.acquire("k");
        done = world.simulator.now();
      }(),
      mono_ms(100));
  EXPECT_TRUE(grant.acquired);
  EXPECT_EQ(done, mono_ms(2));
  EXPECT_EQ(world.nodes_holding("k", grant.lease->value), 5u);
}

// ---------------------------------------------------------------- single instance

// Acquire, extend (a reset from the extend's start) and release on one node.
// The docs' replica-confirmed pattern: SET NX PX, then WAIT numreplicas timeout; too few acks
// fail the acquisition and delete the key again, enough acks grant it.
TEST(SingleInstanceFamily, WaitConfirmedNeedsTheReplicaAcks) {
  for (const int64_t acks : {1, 2}) {
    LockWorld world(1, 1);
    world.nodes[0]->wait_acks = acks;
    SingleInstanceOptions options = zoo::single_instance_reference();
    options.wait_numreplicas = 2;
    options.wait_timeout = Duration::from_ms(250);
    SingleInstanceClient lock(world.client(), options);
    Grant grant;
    bool held = false;
    world.run(0, [&]() -> Task<void> {
      grant = co_await lock.acquire("k");
      held = world.nodes[0]->has("k");
    }());
    EXPECT_EQ(grant.acquired, acks == 2) << acks;
    EXPECT_EQ(held, acks == 2) << acks;
    bool waited = false;
    for (const Command& command : world.nodes[0]->log)
      waited = waited || command == Command{"WAIT", "2", "250"};
    EXPECT_TRUE(waited) << acks;
  }
}

TEST(SingleInstanceFamily, AcquireExtendRelease) {
  LockWorld world(1, 1);
  SingleInstanceClient lock(world.client(), zoo::single_instance_reference());
  Grant grant;
  ExtendResult extended;
  ReleaseResult released;
  int64_t pttl_after_extend = 0;
  Instant deadline_at_grant;
  world.run(0, [&]() -> Task<void> {
    grant = co_await lock.acquire("k");
    deadline_at_grant = grant.lease->deadline.at;
    co_await world.client().sleep(Duration::from_ms(4'000));
    extended = co_await lock.extend(grant.lease);
    pttl_after_extend = world.nodes[0]->pttl("k");
    released = co_await lock.release(grant.lease);
  }());
  ASSERT_TRUE(grant.acquired);
  EXPECT_EQ(deadline_at_grant, mono_ms(10'000));
  EXPECT_TRUE(extended.extended);
  EXPECT_EQ(extended.deadline.at, mono_ms(14'002));
  EXPECT_EQ(pttl_after_extend, 10'000 - 1);
  EXPECT_TRUE(released.released);
  EXPECT_FALSE(world.nodes[0]->has("k"));
}

// A busy lock is polled until the holder's key expires.
TEST(SingleInstanceFamily, PollsUntilTheHolderKeyExpires) {
  LockWorld world(1, 1);
  world.nodes[0]->set_raw("k", "other", 1'000);
  SingleInstanceOptions options = zoo::single_instance_reference();
  options.retry_count = -1;
  SingleInstanceClient lock(world.client(), options);
  Grant grant;
  world.run(0, [&]() -> Task<void> { grant = co_await lock.acquire("k"); }());
  ASSERT_TRUE(grant.acquired);
  EXPECT_EQ(grant.attempts, 11u);  // tries at 0, 102, ..., 1020 ms; the key lives to 1000 ms
}

// A timed-out SET is unknown to the client but still lands: the key stays until its TTL.
TEST(SingleInstanceFamily, TimedOutSetStillExecutes) {
  LockWorld world(1, 1);
  world.simulator.network().add_hold({.from = world.client().id(),
                                      .to = std::nullopt,
                                      .command = "set",
                                      .active_from = Instant::zero(),
                                      .release_at = mono_ms(500)});
  SingleInstanceClient lock(world.client(), zoo::single_instance_reference());
  Grant grant;
  world.run(
      0, [&]() -> Task<void> { grant = co_await lock.acquire("k"); }(), mono_ms(100));
  EXPECT_FALSE(grant.acquired);
  world.simulator.run(mono_ms(1'000));
  EXPECT_TRUE(world.nodes[0]->has("k"));
}

// Releasing after the key expired and was taken by another client deletes nothing.
TEST(SingleInstanceFamily, ReleaseAfterExpiryLeavesTheNewHolder) {
  LockWorld world(1, 1);
  SingleInstanceClient lock(world.client(), zoo::single_instance_reference());
  ReleaseResult released;
  world.run(
      0,
      [&]() -> Task<void> {
        Grant grant = co_await lock.acquire("k");
        co_await world.client().sleep(Duration::from_ms(11'000));
        world.nodes[0]->set_raw("k", "other", 10'000);
        released = co_await lock.release(grant.lease);
      }(),
      mono_ms(12'000));
  EXPECT_FALSE(released.released);
  EXPECT_EQ(world.nodes[0]->get("k"), "other");
}

// ---------------------------------------------------------------- watchdog

// A watchdog renews past the TTL; when the keys vanish (restart without persistence) it tells
// the holder, and the silent variant does not.
void watchdog_story(bool tells, bool& lost, int64_t& lost_at_ms, bool& held_at_25s) {
  LockWorld world(1);
  RedlockClient* inner_ptr = nullptr;
  auto inner = std::make_unique<RedlockClient>(world.client(), zoo::redlock_reference());
  inner_ptr = inner.get();
  (void)inner_ptr;
  WatchdogClient lock(world.client(), std::move(inner),
                      WatchdogOptions{.period = Duration::from_ms(3'000), .tells_holder = tells});
  std::shared_ptr<Lease> lease;
  lost_at_ms = -1;
  world.run(
      0,
      [&]() -> Task<void> {
        Grant grant = co_await lock.acquire("k");
        lease = grant.lease;
        lease->on_lost = [&](const Lease&) { lost_at_ms = world.now_ms(); };
        world.client().spawn(lock.run_watchdog(lease));
      }(),
      mono_ms(25'000));
  held_at_25s = world.nodes_holding("k", lease->value) == 5;
  EXPECT_EQ(lease->deadline.at, Instant::max());  // the holder is given no deadline
  for (FakeRedis* node : world.nodes)
    node->flush();
  world.simulator.run(mono_ms(40'000));
  lost = lease->lost;
}

TEST(WatchdogFamily, RenewsAndTellsTheHolderWhenLost) {
  bool lost = false;
  int64_t lost_at = 0;
  bool held = false;
  watchdog_story(true, lost, lost_at, held);
  EXPECT_TRUE(held);
  EXPECT_TRUE(lost);
  // Renewals start 3 s after the previous one ended (2 ms round trips): the first after the
  // flush is sent at 27 018 ms and answered at 27 020 ms.
  EXPECT_EQ(lost_at, 27'020);
}

TEST(WatchdogFamily, SilentVariantNeverTells) {
  bool lost = true;
  int64_t lost_at = 0;
  bool held = false;
  watchdog_story(false, lost, lost_at, held);
  EXPECT_TRUE(held);
  EXPECT_FALSE(lost);
  EXPECT_EQ(lost_at, -1);
}

// ---------------------------------------------------------------- hash lock with WAIT

HashLockOptions hash_options(uint32_t replicas, uint32_t acks_required) {
  return HashLockOptions{
      .replicas = replicas, .acks_required = acks_required, .client_id = "client-a"};
}

// Acquired when every replica acknowledged; the field names the owner and counts re-entries.
TEST(HashLockFamily, AcquiresWithAllAcksAndReenters) {
  LockWorld world(1, 1);
  world.nodes[0]->wait_acks = 2;
  HashLockClient lock(world.client(), hash_options(2, 0));
  Grant first;
  Grant second;
  ReleaseResult r1;
  bool held_after_one_release = false;
  world.run(0, [&]() -> Task<void> {
    first = co_await lock.acquire("k");
    second = co_await lock.acquire("k");
    r1 = co_await lock.release(second.lease);
    held_after_one_release = world.nodes[0]->has("k");
    co_await lock.release(first.lease);
  }());
  ASSERT_TRUE(first.acquired);
  ASSERT_TRUE(second.acquired);
  EXPECT_EQ(first.lease->value, "client-a:1");
  EXPECT_TRUE(r1.released);
  EXPECT_TRUE(held_after_one_release);
  EXPECT_FALSE(world.nodes[0]->has("k"));
}

// Too few replica acknowledgements undo the acquisition.
TEST(HashLockFamily, TooFewAcksUndoesTheAcquisition) {
  LockWorld world(1, 1);
  world.nodes[0]->wait_acks = 1;
  HashLockClient lock(world.client(), hash_options(2, 0));
  Grant grant;
  world.run(0, [&]() -> Task<void> { grant = co_await lock.acquire("k"); }());
  EXPECT_FALSE(grant.acquired);
  EXPECT_FALSE(world.nodes[0]->has("k"));
}

// A busy lock is retried after the holder's PTTL; the watchdog keeps the lease at 30 s.
TEST(HashLockFamily, WaitsForHolderTtlAndWatchdogRenews) {
  LockWorld world(1, 1, 2);
  HashLockClient a(world.client(0), hash_options(0, 0));
  HashLockOptions b_options = hash_options(0, 0);
  b_options.client_id = "client-b";
  HashLockClient b(world.client(1), b_options);
  Grant ga;
  Grant gb;
  int64_t b_acquired_at = -1;
  // Named lambdas: a coroutine lambda's captures live in the closure, which must outlive it.
  auto holder = [&]() -> Task<void> {
    ga = co_await a.acquire("k");
    world.client(0).spawn(a.run_watchdog(ga.lease));
    co_await world.client(0).sleep(Duration::from_ms(45'000));
    co_await a.release(ga.lease);
  };
  auto waiter = [&]() -> Task<void> {
    co_await world.client(1).sleep(Duration::from_ms(10));
    gb = co_await b.acquire("k");
    b_acquired_at = world.now_ms();
  };
  world.client(0).spawn(holder());
  world.client(1).spawn(waiter());
  world.simulator.run(mono_ms(60'000));
  ASSERT_TRUE(ga.acquired);
  ASSERT_TRUE(gb.acquired);
  EXPECT_GT(b_acquired_at, 45'000);  // renewals at 10, 20, 30, 40 s kept A's lock alive
  EXPECT_EQ(ga.lease->renewals, 4u);
}

// ---------------------------------------------------------------- fenced

Task<void> two_grants(FencedClient& lock, Grant& first, Grant& second) {
  first = co_await lock.acquire("k");
  co_await lock.release(first.lease);
  second = co_await lock.acquire("k");
}

// Tokens from the external counter increase with every grant.
TEST(FencedFamily, ExternalCounterTokensIncrease) {
  LockWorld world(1);
  FencedClient lock(world.client(),
                    std::make_unique<RedlockClient>(world.client(), zoo::redlock_reference()),
                    FencedOptions{.source = TokenSource::external_counter, .token_node = 5});
  Grant first;
  Grant second;
  world.run(0, two_grants(lock, first, second));
  ASSERT_TRUE(first.acquired && second.acquired);
  EXPECT_EQ(first.lease->fencing_token, 1);
  EXPECT_EQ(second.lease->fencing_token, 2);
}

// INCR on one master: the counter lives in that Redis.
TEST(FencedFamily, RedisMasterIncr) {
  LockWorld world(1, 1);
  FencedClient lock(
      world.client(),
      std::make_unique<SingleInstanceClient>(world.client(), zoo::single_instance_reference()),
      FencedOptions{.source = TokenSource::redis_master, .token_node = 0});
  Grant first;
  Grant second;
  world.run(0, two_grants(lock, first, second));
  EXPECT_EQ(second.lease->fencing_token, 2);
  EXPECT_EQ(world.nodes[0]->get("fence:k"), "2");
}

// Max over a quorum: one node ahead sets the token; without a quorum the grant is given back.
TEST(FencedFamily, QuorumMaxTakesTheHighestAndNeedsAMajority) {
  LockWorld world(1);
  world.nodes[4]->set_raw("fence:k", "41", -1);
  FencedClient lock(world.client(),
                    std::make_unique<RedlockClient>(world.client(), zoo::redlock_reference()),
                    FencedOptions{.source = TokenSource::quorum_max, .node_count = 5});
  Grant first;
  Grant second;
  world.run(0, [&]() -> Task<void> {
    first = co_await lock.acquire("k");
    co_await lock.release(first.lease);
    world.simulator.network().add_hold({.from = world.client().id(),
                                        .to = std::nullopt,
                                        .command = "incr",
                                        .active_from = world.simulator.now(),
                                        .release_at = world.simulator.now() + Duration::from_s(1),
                                        .count = 3});
    second = co_await lock.acquire("k");
  }());
  ASSERT_TRUE(first.acquired);
  EXPECT_EQ(first.lease->fencing_token, 42);
  EXPECT_FALSE(second.acquired);
  EXPECT_EQ(second.failure, "token");
  EXPECT_EQ(world.nodes_holding("k", ""), 0u);
  for (FakeRedis* node : world.nodes)
    EXPECT_FALSE(node->has("k"));
}

// The single-instance poll draws its jitter from the seed too.
std::vector<std::string> single_attempt_times(uint64_t seed) {
  LockWorld world(seed, 1);
  world.nodes[0]->set_raw("k", "other", 60'000);
  SingleInstanceOptions options = zoo::single_instance_reference();
  options.retry_count = 3;
  options.retry_delay = RetryDelay{.min_ms = 0, .jitter_ms = 500};
  SingleInstanceClient lock(world.client(), options);
  world.attach_notes(lock, "c0");
  world.run(
      0, [&]() -> Task<void> { co_await lock.acquire("k"); }(), Instant::from_ms(5'000));
  return world.notes;
}

TEST(SingleInstanceFamily, RetryJitterIsDrawnFromTheSeed) {
  const std::vector<std::string> a = single_attempt_times(11);
  EXPECT_EQ(a.size(), 4u);
  EXPECT_EQ(a, single_attempt_times(11));
  EXPECT_NE(a, single_attempt_times(12));
}

// A renewal that times out makes the telling watchdog give up, though the PEXPIRE still lands.
TEST(WatchdogFamily, TimedOutRenewalStillExecutesButTheHolderIsTold) {
  LockWorld world(1, 1);
  auto inner =
      std::make_unique<SingleInstanceClient>(world.client(), zoo::single_instance_reference());
  WatchdogClient lock(world.client(), std::move(inner),
                      WatchdogOptions{.period = Duration::from_ms(3'000), .tells_holder = true});
  std::shared_ptr<Lease> lease;
  world.simulator.network().add_hold({.from = world.client().id(),
                                      .to = std::nullopt,
                                      .command = "eval",
                                      .active_from = Instant::zero(),
                                      .release_at = mono_ms(3'500)});
  auto body = [&]() -> Task<void> {
    Grant grant = co_await lock.acquire("k");
    lease = grant.lease;
    world.client().spawn(lock.run_watchdog(lease));
  };
  world.run(0, body(), mono_ms(3'400));
  EXPECT_TRUE(lease->lost);  // the renewal sent at 3 002 ms timed out at 3 052 ms
  world.simulator.run(mono_ms(3'600));
  EXPECT_EQ(world.nodes[0]->pttl("k"), 10'000 - 100);  // executed when the hold ends, 3 500 ms
}

// Redisson's shape: an acquire script that times out still runs, leaving a held lock that no
// watchdog renews and whose owner was told it failed.
TEST(HashLockFamily, TimedOutAcquireStillTakesTheLock) {
  LockWorld world(1, 1);
  world.simulator.network().add_hold({.from = world.client().id(),
                                      .to = std::nullopt,
                                      .command = "eval",
                                      .active_from = Instant::zero(),
                                      .release_at = mono_ms(5'000)});
  HashLockClient lock(world.client(), hash_options(0, 0));
  Grant grant;
  world.run(
      0, [&]() -> Task<void> { grant = co_await lock.acquire("k"); }(), mono_ms(4'000));
  EXPECT_FALSE(grant.acquired);
  EXPECT_EQ(grant.failure, "error");
  EXPECT_FALSE(world.nodes[0]->has("k"));
  world.simulator.run(mono_ms(6'000));
  EXPECT_TRUE(world.nodes[0]->has("k"));
  EXPECT_GT(world.nodes[0]->pttl("k"), 28'000);
}

// A token request that timed out still increments the counter: the next grant skips a number.
TEST(FencedFamily, TimedOutTokenRequestStillIncrements) {
  LockWorld world(1);
  FencedClient lock(world.client(),
                    std::make_unique<RedlockClient>(world.client(), zoo::redlock_reference()),
                    FencedOptions{.source = TokenSource::redis_master, .token_node = 0});
  world.simulator.network().add_hold({.from = world.client().id(),
                                      .to = std::nullopt,
                                      .command = "incr",
                                      .active_from = Instant::zero(),
                                      .release_at = mono_ms(500)});
  Grant first;
  Grant second;
  auto body = [&]() -> Task<void> {
    first = co_await lock.acquire("k");
    co_await world.client().sleep(Duration::from_ms(1'000));
    second = co_await lock.acquire("k");
  };
  world.run(0, body(), mono_ms(2'000));
  EXPECT_FALSE(first.acquired);
  EXPECT_EQ(first.failure, "token");
  ASSERT_TRUE(second.acquired);
  EXPECT_EQ(second.lease->fencing_token, 2);
}

}  // namespace
}  // namespace redlock_sim
