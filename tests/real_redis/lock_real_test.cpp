// The lock clients against real redis-server processes through the hiredis backend of the port.
#include <gtest/gtest.h>
#include <signal.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <mutex>
#include <thread>

#include "lock_impls/real/real_port.hpp"
#include "lock_impls/registry.hpp"
#include "tests/support/redis_server.hpp"

namespace redlock_sim {
namespace {

using real::Endpoint;
using real::RealPort;
using testing::RedisServers;

std::vector<Endpoint> endpoints_of(const RedisServers& servers) {
  std::vector<Endpoint> endpoints;
  for (int port : servers.ports())
    endpoints.push_back(Endpoint{.host = "127.0.0.1", .port = port});
  return endpoints;
}

// Three independent servers shared by the tests of this suite, flushed before each test.
class RealRedisLocks : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    servers_ = new RedisServers();
    if (!servers_->start(3)) FAIL() << servers_->error();
  }
  static void TearDownTestSuite() {
    delete servers_;
    servers_ = nullptr;
  }
  void SetUp() override {
    RealPort port(endpoints_of(*servers_));
    for (NodeId n = 0; n < 3; ++n) {
      const Outcome o = port.run(flush(port, n));
      ASSERT_EQ(o.kind, OutcomeKind::ok);
    }
  }
  static Task<Outcome> flush(Port& port, NodeId node) {
    co_return co_await port.send(node, make_command("FLUSHALL"), Duration::from_s(2));
  }
  static RedisServers* servers_;
};
RedisServers* RealRedisLocks::servers_ = nullptr;

struct Cycle {
  Grant grant;
  ExtendResult extended;
  ReleaseResult released;
};

Task<Cycle> acquire_extend_release(LockClient& lock, std::string resource) {
  Cycle cycle;
  cycle.grant = co_await lock.acquire(resource);
  if (!cycle.grant.acquired) co_return cycle;
  cycle.extended = co_await lock.extend(cycle.grant.lease);
  cycle.released = co_await lock.release(cycle.grant.lease);
  co_return cycle;
}

// Overrides that fit three loopback servers (and give the TTL-less profiles a TTL to extend).
LockParams params_for(const LockEntry& entry) {
  LockParams params;
  const auto accepts = [&](const std::string& key) {
    return find_param(entry.params, key) != nullptr;
  };
  if (accepts("replicas")) params["replicas"] = int64_t{0};
  if (accepts("token_source")) params["token_source"] = "redis_master";
  if (accepts("token_node")) params["token_node"] = int64_t{0};
  if (accepts("ttl_ms")) params["ttl_ms"] = int64_t{10000};
  return params;
}

// Every family, profile and zoo variant acquires, extends (where the library can) and releases
// against real servers, with its own scripts.
TEST_F(RealRedisLocks, EveryRegisteredLockAcquiresExtendsAndReleases) {
  for (const LockEntry& entry : lock_entries()) {
    SCOPED_TRACE(entry.name);
    RealPort port(endpoints_of(*servers_));
    MadeLock made = make_lock(entry.name, port, 3, params_for(entry));
    ASSERT_TRUE(made.client) << made.error;
    const Cycle cycle = port.run(acquire_extend_release(*made.client, "real:" + entry.name));
    ASSERT_TRUE(cycle.grant.acquired) << cycle.grant.failure;
    EXPECT_FALSE(cycle.grant.lease->value.empty());
    if (entry.name != "redlock-py") {  // redlock-py has no extend
      EXPECT_TRUE(cycle.extended.extended) << cycle.extended.failure;
    }
    EXPECT_TRUE(cycle.released.released) << cycle.released.failure;
  }
}

// A per-request timeout reports unknown, a closed port refused; fan-out runs in parallel.
TEST_F(RealRedisLocks, PortTimeoutsRefusalsAndParallelFanOut) {
  std::vector<Endpoint> endpoints = endpoints_of(*servers_);
  endpoints.push_back(Endpoint{.host = "127.0.0.1", .port = testing::free_loopback_port()});
  RealPort port(endpoints);
  auto body = [](RealPort& p) -> Task<std::vector<Outcome>> {
    std::vector<NodeRequest> requests;
    for (NodeId n = 0; n < 3; ++n) {
      // BLPOP on an empty list blocks for 0.3 s on the server, then answers nil.
      requests.push_back({.node = n,
                          .command = make_command("BLPOP", "real:empty", "0.3"),
                          .timeout = Duration::from_s(5)});
    }
    requests.push_back({.node = 0,
                        .command = make_command("BLPOP", "real:empty2", "2"),
                        .timeout = Duration::from_ms(100)});
    requests.push_back(
        {.node = 3, .command = make_command("PING"), .timeout = Duration::from_s(1)});
    co_return co_await p.fan_out(std::move(requests));
  };
  const auto start = std::chrono::steady_clock::now();
  const std::vector<Outcome> outcomes = port.run(body(port));
  const auto elapsed = std::chrono::steady_clock::now() - start;
  ASSERT_EQ(outcomes.size(), 5u);
  for (int i = 0; i < 3; ++i)
    EXPECT_EQ(outcomes[i].kind, OutcomeKind::ok);
  EXPECT_EQ(outcomes[3].kind, OutcomeKind::unknown);  // timed out after 100 ms
  EXPECT_EQ(outcomes[4].kind, OutcomeKind::refused);
  // Three 0.3 s waits in parallel: well under the 0.9 s a loop of blocking calls would take.
  // Node 0's queue also holds the 2 s BLPOP behind the first, so the fan-out ends after ~0.3 s.
  EXPECT_LT(elapsed, std::chrono::milliseconds(800));
}

Task<bool> hold_with_watchdog(RealPort& port, LockClient& lock, std::shared_ptr<Lease>& lease) {
  Grant grant = co_await lock.acquire("real:watchdog");
  if (!grant.acquired) co_return false;
  lease = grant.lease;
  port.spawn(lock.run_watchdog(lease));
  co_await port.sleep(Duration::from_ms(1'000));  // more than three TTLs
  const Outcome value =
      co_await port.send(0, make_command("GET", "real:watchdog"), Duration::from_s(1));
  co_await lock.release(lease);
  co_await port.sleep(Duration::from_ms(150));  // the watchdog sees the release and ends
  co_return value.replied() && value.reply.text == lease->value;
}

// A watchdog spawned on the real port keeps a 300 ms lock alive for a second, then stops.
TEST_F(RealRedisLocks, WatchdogKeepsALockAliveOnRealServers) {
  RealPort port(endpoints_of(*servers_));
  MadeLock made = make_lock("watchdog", port, 3, {{"ttl_ms", 300}, {"watchdog_period_ms", 100}});
  ASSERT_TRUE(made.client) << made.error;
  std::shared_ptr<Lease> lease;
  EXPECT_TRUE(port.run(hold_with_watchdog(port, *made.client, lease)));
  ASSERT_TRUE(lease);
  EXPECT_GE(lease->renewals, 5u);
  EXPECT_FALSE(lease->lost);
}

struct Hold {
  int64_t start_ns;
  int64_t end_ns;
  int worker;
};

struct Shared {
  std::atomic<int> inside{0};
  std::atomic<int> max_inside{0};
  std::atomic<int64_t> counter{0};
  std::mutex holds_mutex;
  std::vector<Hold> holds;
  std::atomic<int> expired_before_release{0};
};

int64_t steady_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

// One worker: `rounds` grants of the lock, each a read-sleep-write on the shared counter.
Task<void> hammer(RealPort& port, LockClient& lock, Shared& shared, int worker, int rounds) {
  for (int round = 0; round < rounds; ++round) {
    Grant grant = co_await lock.acquire("real:hammer");
    if (!grant.acquired) continue;
    const int64_t start = steady_ns();
    const int now_inside = ++shared.inside;
    int seen = shared.max_inside.load();
    while (now_inside > seen && !shared.max_inside.compare_exchange_weak(seen, now_inside)) {
    }
    const int64_t value = shared.counter.load();
    co_await port.sleep(Duration::from_ms(2));
    shared.counter.store(value + 1);
    --shared.inside;
    const int64_t end = steady_ns();
    if (end >= grant.lease->deadline.at.ns()) ++shared.expired_before_release;
    {
      std::lock_guard<std::mutex> lock_holds(shared.holds_mutex);
      shared.holds.push_back(Hold{start, end, worker});
    }
    co_await lock.release(grant.lease);
  }
}

// Several OS threads, each its own client and connections, never hold the lock at once.
TEST_F(RealRedisLocks, ThreadsHammeringOneLockNeverOverlap) {
  constexpr int workers = 4;
  constexpr int rounds = 25;
  Shared shared;
  std::vector<std::thread> threads;
  for (int w = 0; w < workers; ++w) {
    threads.emplace_back([&, w] {
      RealPort port(endpoints_of(*servers_));
      MadeLock made = make_lock("redlock", port, 3,
                                {{"ttl_ms", 2000},
                                 {"retry_count", -1},
                                 {"retry_delay_ms_min", 1},
                                 {"retry_jitter_ms", 10},
                                 {"request_timeout_ms", 200}});
      port.run(hammer(port, *made.client, shared, w, rounds));
    });
  }
  for (std::thread& t : threads)
    t.join();
  EXPECT_EQ(shared.max_inside.load(), 1);
  EXPECT_EQ(shared.counter.load(), workers * rounds);  // no lost update
  EXPECT_EQ(shared.expired_before_release.load(), 0);
  ASSERT_EQ(shared.holds.size(), static_cast<std::size_t>(workers * rounds));
  std::sort(shared.holds.begin(), shared.holds.end(),
            [](const Hold& a, const Hold& b) { return a.start_ns < b.start_ns; });
  for (std::size_t i = 1; i < shared.holds.size(); ++i) {
    EXPECT_GE(shared.holds[i].start_ns, shared.holds[i - 1].end_ns) << "overlap at hold " << i;
  }
}

Task<std::vector<Grant>> grants_in_a_row(LockClient& lock, int count) {
  std::vector<Grant> grants;
  for (int i = 0; i < count; ++i) {
    Grant grant = co_await lock.acquire("real:kill");
    if (grant.acquired) co_await lock.release(grant.lease);
    grants.push_back(std::move(grant));
  }
  co_return grants;
}

// One of three servers is killed mid-run; Redlock keeps acquiring on the other two.
TEST(RealRedisKill, RedlockStillAcquiresWithOneNodeKilled) {
  RedisServers servers;
  ASSERT_TRUE(servers.start(3)) << servers.error();
  RealPort port(endpoints_of(servers));
  MadeLock made = make_lock("redlock", port, 3, {{"request_timeout_ms", 200}});
  ASSERT_TRUE(made.client) << made.error;
  const std::vector<Grant> before = port.run(grants_in_a_row(*made.client, 5));
  servers.at(2).kill();
  const std::vector<Grant> after = port.run(grants_in_a_row(*made.client, 5));
  for (const Grant& g : before) {
    EXPECT_TRUE(g.acquired);
    EXPECT_EQ(g.nodes_locked, 3u);
  }
  for (const Grant& g : after) {
    EXPECT_TRUE(g.acquired) << g.failure;
    EXPECT_EQ(g.nodes_locked, 2u);
  }
}

}  // namespace
}  // namespace redlock_sim

namespace redlock_sim {
namespace {

// A test process killed mid-run (SIGKILL: no destructor runs) leaves no redis-server behind: the
// fixture's servers die with it (PR_SET_PDEATHSIG); and no temporary folder: the fixture removes
// it as soon as the server listens (it writes nothing there afterwards).
TEST(RealRedisFixture, ServerDiesWithAKilledTestProcess) {
  struct Started {
    int port = -1;
    char directory[128] = {};
  };
  int channel[2];
  ASSERT_EQ(::pipe(channel), 0);
  const pid_t test_process = ::fork();
  ASSERT_GE(test_process, 0);
  if (test_process == 0) {
    ::close(channel[0]);
    testing::RedisServer server;
    Started started;
    if (server.start()) {
      started.port = server.port();
      std::snprintf(started.directory, sizeof started.directory, "%s", server.directory().c_str());
    }
    if (::write(channel[1], &started, sizeof started) != sizeof started) ::_exit(1);
    ::pause();  // until SIGKILLed
    ::_exit(0);
  }
  ::close(channel[1]);
  Started started;
  ASSERT_EQ(::read(channel[0], &started, sizeof started), static_cast<ssize_t>(sizeof started));
  ::close(channel[0]);
  const int port = started.port;
  ASSERT_GT(port, 0);
  EXPECT_TRUE(testing::loopback_port_open(port));
  ::kill(test_process, SIGKILL);
  ::waitpid(test_process, nullptr, 0);
  bool closed = false;
  for (int i = 0; i < 500 && !closed; ++i) {
    closed = !testing::loopback_port_open(port);
    if (!closed) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  EXPECT_TRUE(closed) << "redis-server on port " << port << " outlived its test process";
  EXPECT_FALSE(std::filesystem::exists(started.directory)) << started.directory << " was left";
}

}  // namespace
}  // namespace redlock_sim
