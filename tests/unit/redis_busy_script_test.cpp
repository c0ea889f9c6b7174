// A script past lua-time-limit takes virtual time on the node (issue 14): other clients get
// Redis's BUSY while it runs, SCRIPT KILL stops a script that has not written (UNKILLABLE once it
// has), and one that nobody stops ends the run at the model's cap (RunStop::script_limit).
// Texts as redis-server 7.0.15 gave them (tests/real_redis/busy_script_real_test.cpp compares).
#include <gtest/gtest.h>

#include "sim/kernel/task_process.hpp"
#include "sim/redis/node.hpp"
#include "sim/redis/sha1.hpp"

namespace redlock_sim {
namespace {

constexpr Duration forever = Duration::from_s(3600);
const char* const busy_text =
    "BUSY Redis is busy running a script. You can only call SCRIPT KILL or SHUTDOWN NOSAVE.";

// 100 Lua instructions a virtual ms: busy after 500 000 (5 s), capped at 2 000 000 (20 s).
EngineOptions slow_scripts() {
  return EngineOptions{.script_instructions_max = 2'000'000, .script_instructions_per_ms = 100};
}

struct World {
  Simulator simulator{7};
  RedisNode& node = simulator.add_process<RedisNode>("redis", slow_scripts());
  TaskProcess& a = simulator.add_process<TaskProcess>("A");
  TaskProcess& b = simulator.add_process<TaskProcess>("B");
  World() {
    for (TaskProcess* p : {&a, &b})
      p->set_endpoints({node.id()});
  }
};

struct Seen {
  Outcome outcome;
  Instant at;
};

Task<void> request_at(TaskProcess& self, Duration start, Command command, Seen& seen) {
  co_await self.sleep(start);
  seen.outcome = co_await self.send(0, std::move(command), forever);
  seen.at = self.simulator().now();
}

std::string killed_text(const std::string& script, int line) {
  return "ERR Script killed by user with SCRIPT KILL... script: " + sha1_hex(script) +
         ", on @user_script:" + std::to_string(line) + ".";
}

// A script of about 800 000 instructions (8 s): a request sent at 1 s waits for the 5 s mark and
// gets BUSY, one at 6 s gets BUSY at once, unknown commands keep their own error, and the caller
// gets its result when the script's time is up; its own next request waits for that.
TEST(RedisBusyScript, OthersGetBusyUntilTheScriptEnds) {
  World world;
  Seen script, early, late, unknown, own, after;
  const std::string body = "local n = 0 for i = 1, 400000 do n = n + 1 end return n";
  world.a.spawn(request_at(world.a, Duration::zero(), make_command("EVAL", body, "0"), script));
  world.a.spawn(request_at(world.a, Duration::from_ms(10), make_command("PING"), own));
  world.b.spawn(request_at(world.b, Duration::from_s(1), make_command("GET", "k"), early));
  world.b.spawn(request_at(world.b, Duration::from_s(6), make_command("SET", "k", "v"), late));
  world.b.spawn(request_at(world.b, Duration::from_s(7), make_command("FOO"), unknown));
  world.b.spawn(request_at(world.b, Duration::from_s(9), make_command("PING"), after));
  world.simulator.run();
  EXPECT_EQ(early.outcome.reply, Reply::error(busy_text));
  EXPECT_EQ(early.at, Instant::from_ms(5002));  // the EVAL arrived at 1, timed out at 5001
  EXPECT_EQ(late.outcome.reply, Reply::error(busy_text));
  EXPECT_EQ(late.at, Instant::from_ms(6002));
  EXPECT_EQ(unknown.outcome.reply.text.rfind("ERR unknown command 'FOO'", 0), 0u);
  // 400 000 iterations of two VM instructions (ADD, FORLOOP): 8 s from its start at 1 ms.
  EXPECT_TRUE(script.outcome.reply.is_integer(400000));
  EXPECT_EQ(script.at, Instant::from_ms(8002));
  EXPECT_EQ(own.outcome.reply, Reply::status("PONG"));
  EXPECT_EQ(own.at, Instant::from_ms(8002));  // served right after the script
  EXPECT_EQ(after.outcome.reply, Reply::status("PONG"));
  EXPECT_EQ(world.node.engine().peek("k"), nullptr);  // the SET was refused
  EXPECT_EQ(world.node.engine().script_limits().busy, 1u);
}

// No time event runs while a script is busy: the active-expire cycle that falls due meanwhile
// (100 ms after a key got a TTL) waits for the script's end, then deletes the expired key.
TEST(RedisBusyScript, TheExpireCycleWaitsForTheScriptsEnd) {
  World world;
  Seen set, script;
  const std::string body = "local n = 0 for i = 1, 400000 do n = n + 1 end return n";
  world.a.spawn(
      request_at(world.a, Duration::zero(), make_command("SET", "x", "v", "PX", "20"), set));
  world.b.spawn(
      request_at(world.b, Duration::from_ms(50), make_command("EVAL", body, "0"), script));
  world.simulator.run(Instant::from_ms(7000));
  EXPECT_TRUE(set.outcome.reply.is_ok());
  EXPECT_NE(world.node.engine().peek("x"), nullptr);  // expired, not yet deleted
  EXPECT_EQ(world.node.engine().expired_keys(), 0u);
  world.simulator.run();
  EXPECT_TRUE(script.outcome.reply.is_integer(400000));
  EXPECT_EQ(world.node.engine().peek("x"), nullptr);  // the held cycle ran at the script's end
  EXPECT_EQ(world.node.engine().expired_keys(), 1u);
}

// SCRIPT KILL from another client stops an endless read-only script: the killer gets OK, the
// caller Redis's killed-script error, and the node serves again; one sent before the 5 s mark
// takes effect at it.
TEST(RedisBusyScript, ScriptKillStopsAReadOnlyScript) {
  World world;
  Seen script, kill, ping;
  const std::string body = "local n = 0\nwhile true do n = n + 1 end";
  world.a.spawn(request_at(world.a, Duration::zero(), make_command("EVAL", body, "0"), script));
  world.b.spawn(request_at(world.b, Duration::from_s(2), make_command("SCRIPT", "KILL"), kill));
  world.b.spawn(request_at(world.b, Duration::from_s(8), make_command("PING"), ping));
  const RunResult run = world.simulator.run();
  EXPECT_EQ(run.stop, RunStop::idle);
  EXPECT_EQ(kill.outcome.reply, Reply::ok());
  EXPECT_EQ(kill.at, Instant::from_ms(5002));
  EXPECT_EQ(script.outcome.reply, Reply::error(killed_text(body, 2)));
  EXPECT_EQ(script.at, Instant::from_ms(5002));
  EXPECT_EQ(ping.outcome.reply, Reply::status("PONG"));
  EXPECT_EQ(world.node.engine().script_limits().script_kill, 1u);
}

// A script that has written cannot be killed (UNKILLABLE); nobody else can stop it, so the run
// ends at the cap, 20 s after it started, with its own stop reason.
TEST(RedisBusyScript, ScriptThatWroteIsUnkillableAndEndsTheRunAtTheCap) {
  World world;
  Seen script, kill;
  const std::string body = "redis.call('set', 'k', 'v') while true do end";
  world.a.spawn(request_at(world.a, Duration::zero(), make_command("EVAL", body, "0"), script));
  world.b.spawn(request_at(world.b, Duration::from_s(6), make_command("SCRIPT", "KILL"), kill));
  const RunResult run = world.simulator.run();
  EXPECT_EQ(kill.outcome.reply.text,
            "UNKILLABLE Sorry the script already executed write commands against the dataset. "
            "You can either wait the script termination or kill the server in a hard way using "
            "the SHUTDOWN NOSAVE command.");
  EXPECT_EQ(run.stop, RunStop::script_limit);
  EXPECT_TRUE(run.limit_hit());
  EXPECT_EQ(run.end_time, Instant::from_ms(1) + Duration::from_s(20));
  EXPECT_EQ(script.outcome.kind, OutcomeKind::unknown);  // never answered
  EXPECT_STREQ(run_stop_name(run.stop), "script_limit");
}

// A script that writes only late: killed before the write, nothing is written (it runs again
// from the keyspace it started with, up to the kill); killed after it, UNKILLABLE.
TEST(RedisBusyScript, KillBeforeALateWriteLeavesNothingWritten) {
  const std::string body =
      "local i = 0\nwhile i < 250000 do i = i + 1 end\nredis.call('set', 'k', 'v')\n"
      "while true do end";
  for (const int64_t kill_s : {6, 16}) {
    World world;
    Seen script, kill;
    world.a.spawn(request_at(world.a, Duration::zero(), make_command("EVAL", body, "0"), script));
    world.b.spawn(
        request_at(world.b, Duration::from_s(kill_s), make_command("SCRIPT", "KILL"), kill));
    const RunResult run = world.simulator.run();
    if (kill_s == 6) {
      EXPECT_EQ(kill.outcome.reply, Reply::ok());
      EXPECT_EQ(script.outcome.reply, Reply::error(killed_text(body, 2)));
      EXPECT_EQ(world.node.engine().peek("k"), nullptr);
      EXPECT_EQ(run.stop, RunStop::idle);
    } else {
      EXPECT_EQ(kill.outcome.reply.text.rfind("UNKILLABLE ", 0), 0u);
      EXPECT_NE(world.node.engine().peek("k"), nullptr);
      EXPECT_EQ(run.stop, RunStop::script_limit);
    }
  }
}

// A killed script runs again from the state it started in: an expired key it deleted before
// going busy is deleted once (one expired key counted), and math.random continues from where
// the killed script's draws left it, as on a real server.
TEST(RedisBusyScript, KilledScriptRunsAgainFromItsStart) {
  World world;
  world.node.execute(make_command("SET", "old", "x", "PX", "1"));
  Seen script, kill, draw;
  const std::string body =
      "redis.call('get', 'old') local r = math.random(1000)\nwhile true do end";
  world.a.spawn(
      request_at(world.a, Duration::from_ms(10), make_command("EVAL", body, "0"), script));
  world.b.spawn(request_at(world.b, Duration::from_s(7), make_command("SCRIPT", "KILL"), kill));
  world.b.spawn(request_at(world.b, Duration::from_s(8),
                           make_command("EVAL", "return math.random(1000)", "0"), draw));
  world.simulator.run();
  EXPECT_EQ(kill.outcome.reply, Reply::ok());
  EXPECT_EQ(world.node.engine().peek("old"), nullptr);
  EXPECT_EQ(world.node.engine().expired_keys(), 1u);
  // A fresh 7.0.15 draws 397 then 841: the killed script took the first.
  EXPECT_TRUE(draw.outcome.reply.is_integer(841));
}

}  // namespace
}  // namespace redlock_sim

namespace redlock_sim {
namespace {

// CONFIG SET busy-reply-threshold is the threshold the node times scripts by: lowered to 1 s,
// a request at 1.5 s gets BUSY at once (at 5 s it would have waited), and lua-time-limit, its
// alias, reads the same value.
TEST(RedisBusyScript, ConfigSetBusyReplyThresholdMovesTheBusyMark) {
  World world;
  Seen set, alias, script, early;
  const std::string body = "local n = 0 for i = 1, 400000 do n = n + 1 end return n";
  world.b.spawn(request_at(world.b, Duration::zero(),
                           make_command("CONFIG", "SET", "busy-reply-threshold", "1000"), set));
  world.b.spawn(request_at(world.b, Duration::from_ms(1),
                           make_command("CONFIG", "GET", "lua-time-limit"), alias));
  world.a.spawn(
      request_at(world.a, Duration::from_ms(10), make_command("EVAL", body, "0"), script));
  world.b.spawn(request_at(world.b, Duration::from_ms(1500), make_command("GET", "k"), early));
  world.simulator.run();
  EXPECT_EQ(set.outcome.reply, Reply::ok());
  EXPECT_EQ(alias.outcome.reply,
            Reply::array({Reply::bulk("lua-time-limit"), Reply::bulk("1000")}));
  EXPECT_EQ(early.outcome.reply, Reply::error(busy_text));
  EXPECT_EQ(early.at, Instant::from_ms(1502));
  EXPECT_EQ(world.node.engine().config().busy_reply_threshold_ms, 1000);
}

// SHUTDOWN stops the node without a reply, as the crash path does: the data is gone after a
// restart (nothing saved) and later requests get none either.
TEST(RedisBusyScript, ShutdownStopsTheNodeWithoutAReply) {
  World world;
  Seen set, shutdown, ping;
  world.a.spawn(request_at(world.a, Duration::zero(), make_command("SET", "k", "v"), set));
  world.a.spawn(
      request_at(world.a, Duration::from_ms(10), make_command("SHUTDOWN", "NOSAVE"), shutdown));
  world.b.spawn(request_at(world.b, Duration::from_ms(20), make_command("PING"), ping));
  world.simulator.run();
  EXPECT_EQ(set.outcome.reply, Reply::ok());
  EXPECT_EQ(shutdown.outcome.kind, OutcomeKind::unknown);
  EXPECT_EQ(ping.outcome.kind, OutcomeKind::unknown);
  EXPECT_EQ(world.node.status(), ProcessStatus::crashed);
  EXPECT_EQ(world.node.engine().key_count(), 0u);
}

// While a script that wrote is busy, SHUTDOWN without NOSAVE gets BUSY and SHUTDOWN NOSAVE stops
// the node: the script ends with it (no script_limit stop), and nobody, caller included, gets
// an answer after it.
TEST(RedisBusyScript, ShutdownNosaveEndsABusyScript) {
  World world;
  Seen script, plain, nosave, own;
  const std::string body = "redis.call('set', 'k', 'v') while true do end";
  world.a.spawn(request_at(world.a, Duration::zero(), make_command("EVAL", body, "0"), script));
  world.a.spawn(request_at(world.a, Duration::from_ms(10), make_command("PING"), own));
  world.b.spawn(request_at(world.b, Duration::from_s(6), make_command("SHUTDOWN"), plain));
  world.b.spawn(
      request_at(world.b, Duration::from_s(7), make_command("SHUTDOWN", "NOSAVE"), nosave));
  const RunResult run = world.simulator.run();
  EXPECT_EQ(plain.outcome.reply, Reply::error(busy_text));
  EXPECT_EQ(nosave.outcome.kind, OutcomeKind::unknown);
  EXPECT_EQ(script.outcome.kind, OutcomeKind::unknown);
  EXPECT_EQ(own.outcome.kind, OutcomeKind::unknown);
  EXPECT_NE(run.stop, RunStop::script_limit);
  EXPECT_EQ(world.node.status(), ProcessStatus::crashed);
}

}  // namespace
}  // namespace redlock_sim
