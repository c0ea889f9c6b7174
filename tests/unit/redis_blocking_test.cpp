// Unit tests for BLPOP on the simulated node with several clients (what one redis-cli session in
// the differential corpus cannot show): wake-up order, a script's LPUSH waking one waiter after
// the script, timeouts on the serverCron tick, requests queued behind a blocked BLPOP, crashes.
// Each story was run against redis-server 7.0.15 with redis-py clients (see the commit message).
#include <gtest/gtest.h>

#include "sim/kernel/task_process.hpp"
#include "sim/redis/node.hpp"

namespace redlock_sim {
namespace {

constexpr Duration forever = Duration::from_s(3600);

// python-redis-lock's release: the signal list re-made with one element and a 1 s TTL.
const char* const release_script =
    "redis.call('del', KEYS[1]) redis.call('lpush', KEYS[1], 1) "
    "redis.call('pexpire', KEYS[1], 1000) return 0";

struct World {
  Simulator simulator{7};
  RedisNode& node = simulator.add_process<RedisNode>("redis");
  TaskProcess& a = simulator.add_process<TaskProcess>("A");
  TaskProcess& b = simulator.add_process<TaskProcess>("B");
  TaskProcess& c = simulator.add_process<TaskProcess>("C");
  World() {
    for (TaskProcess* p : {&a, &b, &c})
      p->set_endpoints({node.id()});
  }
};

struct Seen {
  Outcome outcome;
  Instant at;
};

Task<void> request_at(TaskProcess& self, Duration start, Command command, Seen& seen,
                      Duration timeout = forever) {
  co_await self.sleep(start);
  seen.outcome = co_await self.send(0, std::move(command), timeout);
  seen.at = self.simulator().now();
}

Reply popped(const std::string& key, const std::string& element) {
  return Reply::array({Reply::bulk(key), Reply::bulk(element)});
}

// Two clients block on one list; a release script's one element wakes the first to block, after
// the script (its PEXPIRE applied, the emptied key deleted), and the second waits on; a later
// RPUSH of two elements wakes it with the first and leaves the other in the list.
TEST(RedisBlocking, WakesBlockedClientsInTheOrderTheyBlocked) {
  World world;
  Seen a, b, script, push, length;
  world.a.spawn(request_at(world.a, Duration::zero(), make_command("BLPOP", "s", "0"), a));
  world.b.spawn(request_at(world.b, Duration::from_ms(10), make_command("BLPOP", "s", "0"), b));
  world.c.spawn(request_at(world.c, Duration::from_ms(50),
                           make_command("EVAL", release_script, "1", "s"), script));
  world.simulator.run(Instant::from_ms(100));
  EXPECT_EQ(a.outcome.reply, popped("s", "1"));
  EXPECT_EQ(a.at, Instant::from_ms(52));            // sent at 50, executed at 51, woken then
  EXPECT_EQ(b.outcome.kind, OutcomeKind::unknown);  // still waiting
  EXPECT_EQ(world.node.engine().peek("s"), nullptr);
  world.c.spawn(request_at(world.c, Duration::zero(), make_command("RPUSH", "s", "x", "y"), push));
  world.simulator.run(Instant::from_ms(200));
  EXPECT_EQ(b.outcome.reply, popped("s", "x"));
  world.c.spawn(request_at(world.c, Duration::zero(), make_command("LLEN", "s"), length));
  world.simulator.run(Instant::from_ms(300));
  EXPECT_TRUE(length.outcome.reply.is_integer(1));
}

// The timeout is due when the node's wall clock passes it and answered at the next 100 ms
// serverCron tick (hz 10) with a nil array: BLPOP k 0.25 sent at 0 arrives at 1, is due after
// 251 and answered at the 300 ms tick, read at 301.
TEST(RedisBlocking, TimeoutAnsweredAtTheNextCronTickWithANilArray) {
  World world;
  Seen a;
  world.a.spawn(request_at(world.a, Duration::zero(), make_command("BLPOP", "k", "0.25"), a));
  world.simulator.run();
  EXPECT_EQ(a.outcome.kind, OutcomeKind::ok);
  EXPECT_EQ(a.outcome.reply.type, ReplyType::nil_array);
  EXPECT_EQ(a.at, Instant::from_ms(301));
}

// A blocked connection reads nothing more: a PING sent after the BLPOP is answered after it.
TEST(RedisBlocking, RequestsOnABlockedConnectionWaitBehindIt) {
  World world;
  Seen blpop, ping, push;
  world.a.spawn(request_at(world.a, Duration::zero(), make_command("BLPOP", "s", "0"), blpop));
  world.a.spawn(request_at(world.a, Duration::from_ms(5), make_command("PING"), ping));
  world.c.spawn(request_at(world.c, Duration::from_ms(40), make_command("LPUSH", "s", "v"), push));
  world.simulator.run();
  EXPECT_EQ(blpop.outcome.reply, popped("s", "v"));
  EXPECT_TRUE(ping.outcome.reply.is_ok() || ping.outcome.reply.text == "PONG");
  EXPECT_EQ(blpop.at, Instant::from_ms(42));
  EXPECT_EQ(ping.at, Instant::from_ms(42));
}

// A client that crashed while blocked is skipped (its connection closed): the element goes to
// the next waiter. A node crash drops every blocked client: the waiter learns nothing.
TEST(RedisBlocking, CrashedWaiterIsSkippedAndANodeCrashForgetsWaiters) {
  World world;
  Seen a, b, push;
  world.a.spawn(request_at(world.a, Duration::zero(), make_command("BLPOP", "s", "0"), a));
  world.b.spawn(request_at(world.b, Duration::from_ms(10), make_command("BLPOP", "s", "0"), b));
  world.simulator.run(Instant::from_ms(20));
  world.simulator.crash(world.a.id());
  world.c.spawn(request_at(world.c, Duration::zero(), make_command("LPUSH", "s", "v"), push));
  world.simulator.run(Instant::from_ms(40));
  EXPECT_EQ(b.outcome.reply, popped("s", "v"));
  EXPECT_EQ(world.node.engine().peek("s"), nullptr);

  Seen waiter;
  world.b.spawn(request_at(world.b, Duration::zero(), make_command("BLPOP", "s", "1"), waiter,
                           Duration::from_ms(3000)));
  world.simulator.run(Instant::from_ms(60));
  world.simulator.crash(world.node.id());
  world.simulator.restart(world.node.id());
  world.simulator.run(Instant::from_ms(5000));
  EXPECT_EQ(waiter.outcome.kind, OutcomeKind::unknown);
}

}  // namespace
}  // namespace redlock_sim
