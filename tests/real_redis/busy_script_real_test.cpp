// A busy script, told the same way to a real redis-server 7.0 (two hiredis connections) and to
// the simulated node (two simulated clients): every reply text must match (issue 14). The
// redis-cli corpus cannot say this: it has one connection, and a busy script needs two.
#include <gtest/gtest.h>
#include <hiredis/hiredis.h>

#include <chrono>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "sim/kernel/task_process.hpp"
#include "sim/redis/node.hpp"
#include "tests/support/redis_server.hpp"

namespace redlock_sim {
namespace {

// What B sends while A's endless read-only script is busy, then SCRIPT KILL.
const std::vector<Command> while_busy = {make_command("PING"),
                                         make_command("GET", "k"),
                                         make_command("SET", "k", "v"),
                                         make_command("FOO", "x"),
                                         make_command("SCRIPT", "KILL", "x"),
                                         make_command("SCRIPT", "FOO"),
                                         make_command("SCRIPT", "LOAD"),
                                         make_command("SCRIPT", "FLUSH"),
                                         make_command("EVAL", "return 1", "0"),
                                         make_command("SCRIPT", "KILL")};
const char* const read_only_script = "local n = 0\nwhile true do n = n + 1 end";
const char* const writing_script = "redis.call('set', 'k', 'v') while true do end";

std::string text_of(const Reply& reply) {
  switch (reply.type) {
    case ReplyType::status:
      return "+" + reply.text;
    case ReplyType::error:
      return "-" + reply.text;
    case ReplyType::integer:
      return ":" + std::to_string(reply.integer);
    case ReplyType::bulk:
      return "$" + reply.text;
    default:
      return "other";
  }
}

std::string text_of(const redisReply* reply) {
  if (reply == nullptr) return "no reply";
  switch (reply->type) {
    case REDIS_REPLY_STATUS:
      return "+" + std::string(reply->str, reply->len);
    case REDIS_REPLY_ERROR:
      return "-" + std::string(reply->str, reply->len);
    case REDIS_REPLY_INTEGER:
      return ":" + std::to_string(reply->integer);
    case REDIS_REPLY_STRING:
      return "$" + std::string(reply->str, reply->len);
    default:
      return "other";
  }
}

struct Connection {
  redisContext* context = nullptr;
  explicit Connection(int port) { context = redisConnect("127.0.0.1", port); }
  ~Connection() {
    if (context != nullptr) redisFree(context);
  }
  void append(const Command& command) {
    std::vector<const char*> argv;
    std::vector<std::size_t> lengths;
    for (const std::string& word : command) {
      argv.push_back(word.data());
      lengths.push_back(word.size());
    }
    redisAppendCommandArgv(context, static_cast<int>(argv.size()), argv.data(), lengths.data());
  }
  std::string read() {
    void* reply = nullptr;
    if (redisGetReply(context, &reply) != REDIS_OK) return "no reply";
    const std::string text = text_of(static_cast<redisReply*>(reply));
    freeReplyObject(reply);
    return text;
  }
  std::string call(const Command& command) {
    append(command);
    return read();
  }
};

// The story on a real server, with busy-reply-threshold at 200 ms; ends it with SHUTDOWN NOSAVE.
std::vector<std::string> real_story(int port) {
  std::vector<std::string> seen;
  Connection a(port), b(port);
  seen.push_back(b.call(make_command("CONFIG", "SET", "busy-reply-threshold", "200")));
  a.append(make_command("EVAL", read_only_script, "0"));
  redisBufferWrite(a.context, nullptr);
  std::this_thread::sleep_for(std::chrono::milliseconds(400));
  for (const Command& command : while_busy)
    seen.push_back(b.call(command));
  seen.push_back(a.read());
  seen.push_back(b.call(make_command("PING")));
  a.append(make_command("EVAL", writing_script, "0"));
  redisBufferWrite(a.context, nullptr);
  std::this_thread::sleep_for(std::chrono::milliseconds(400));
  seen.push_back(b.call(make_command("SCRIPT", "KILL")));
  b.append(make_command("SHUTDOWN", "NOSAVE"));
  redisBufferWrite(b.context, nullptr);
  return seen;
}

struct Seen {
  std::string text;
};

Task<void> call_at(TaskProcess& self, Duration start, Command command, std::string& seen) {
  co_await self.sleep(start);
  const Outcome outcome = co_await self.send(0, std::move(command), Duration::from_s(3600));
  seen = outcome.kind == OutcomeKind::ok ? text_of(outcome.reply) : "no reply";
}

// The same story on the model, busy_reply_threshold_ms 200; B's requests 1 ms apart.
std::vector<std::string> model_story(RunStop& stop) {
  Simulator simulator(1);
  RedisNode& node =
      simulator.add_process<RedisNode>("redis", EngineOptions{.script_instructions_max = 20'000'000,
                                                              .script_instructions_per_ms = 10'000,
                                                              .busy_reply_threshold_ms = 200});
  TaskProcess& a = simulator.add_process<TaskProcess>("A");
  TaskProcess& b = simulator.add_process<TaskProcess>("B");
  a.set_endpoints({node.id()});
  b.set_endpoints({node.id()});
  std::vector<std::string> seen(while_busy.size() + 5);
  seen[0] = "+OK";  // CONFIG SET busy-reply-threshold: an EngineOptions value here
  a.spawn(call_at(a, Duration::zero(), make_command("EVAL", read_only_script, "0"),
                  seen[while_busy.size() + 1]));
  for (std::size_t i = 0; i < while_busy.size(); ++i) {
    b.spawn(call_at(b, Duration::from_ms(400 + 3 * static_cast<int64_t>(i)), while_busy[i],
                    seen[i + 1]));
  }
  b.spawn(call_at(b, Duration::from_ms(600), make_command("PING"), seen[while_busy.size() + 2]));
  a.spawn(call_at(a, Duration::from_ms(700), make_command("EVAL", writing_script, "0"),
                  seen[while_busy.size() + 4]));
  b.spawn(call_at(b, Duration::from_ms(1100), make_command("SCRIPT", "KILL"),
                  seen[while_busy.size() + 3]));
  stop = simulator.run().stop;
  seen.pop_back();  // the writing script's caller: never answered (the real one is shut down)
  return seen;
}

TEST(BusyScriptReal, RepliesMatchARealServer) {
  testing::RedisServer server;
  ASSERT_TRUE(server.start()) << server.error();
  const std::vector<std::string> real = real_story(server.port());
  RunStop stop = RunStop::idle;
  const std::vector<std::string> model = model_story(stop);
  EXPECT_EQ(model, real);
  EXPECT_EQ(stop, RunStop::script_limit);  // nobody could stop the writing script
  // The texts themselves, for the reader: BUSY, then OK and the killed script's error.
  ASSERT_EQ(real.size(), while_busy.size() + 4);
  EXPECT_EQ(real[1],
            "-BUSY Redis is busy running a script. You can only call SCRIPT KILL or SHUTDOWN "
            "NOSAVE.");
  EXPECT_EQ(real[while_busy.size()], "+OK");
  EXPECT_EQ(real.back().rfind("-UNKILLABLE Sorry the script already executed write", 0), 0u);
}

}  // namespace
}  // namespace redlock_sim

namespace redlock_sim {
namespace {

// What B sends while A's writing script is busy: SHUTDOWN without NOSAVE is refused BUSY (7.0's
// shutdownCommand), its own errors come first, and SHUTDOWN NOSAVE stops the server.
const std::vector<Command> shutdown_while_busy = {
    make_command("SHUTDOWN"),          make_command("SHUTDOWN", "SAVE"),
    make_command("SHUTDOWN", "NOW"),   make_command("SHUTDOWN", "ABORT"),
    make_command("SHUTDOWN", "FOO"),   make_command("SHUTDOWN", "NOSAVE", "SAVE"),
    make_command("SCRIPT", "KILL"),    make_command("CONFIG", "SET", "lua-time-limit", "9"),
    make_command("SHUTDOWN", "NOSAVE")};

// On a real server: the threshold lowered through the alias, then the story above.
std::vector<std::string> real_shutdown_story(int port) {
  std::vector<std::string> seen;
  Connection a(port), b(port);
  seen.push_back(b.call(make_command("CONFIG", "SET", "lua-time-limit", "200")));
  a.append(make_command("EVAL", writing_script, "0"));
  redisBufferWrite(a.context, nullptr);
  std::this_thread::sleep_for(std::chrono::milliseconds(400));
  for (const Command& command : shutdown_while_busy)
    seen.push_back(b.call(command));
  seen.push_back(a.read());
  return seen;
}

// On the model, with the default threshold (5000 ms) until B's CONFIG SET lowers it.
std::vector<std::string> model_shutdown_story(RunStop& stop, bool& node_crashed) {
  Simulator simulator(1);
  RedisNode& node = simulator.add_process<RedisNode>("redis", EngineOptions{});
  TaskProcess& a = simulator.add_process<TaskProcess>("A");
  TaskProcess& b = simulator.add_process<TaskProcess>("B");
  a.set_endpoints({node.id()});
  b.set_endpoints({node.id()});
  std::vector<std::string> seen(shutdown_while_busy.size() + 2);
  b.spawn(call_at(b, Duration::zero(), make_command("CONFIG", "SET", "lua-time-limit", "200"),
                  seen[0]));
  a.spawn(call_at(a, Duration::from_ms(1), make_command("EVAL", writing_script, "0"), seen.back()));
  for (std::size_t i = 0; i < shutdown_while_busy.size(); ++i) {
    b.spawn(call_at(b, Duration::from_ms(400 + 3 * static_cast<int64_t>(i)), shutdown_while_busy[i],
                    seen[i + 1]));
  }
  stop = simulator.run().stop;
  node_crashed = node.status() == ProcessStatus::crashed;
  return seen;
}

TEST(BusyScriptReal, ShutdownWhileBusyMatchesARealServer) {
  testing::RedisServer server;
  ASSERT_TRUE(server.start()) << server.error();
  const std::vector<std::string> real = real_shutdown_story(server.port());
  RunStop stop = RunStop::idle;
  bool node_crashed = false;
  const std::vector<std::string> model = model_shutdown_story(stop, node_crashed);
  EXPECT_EQ(model, real);
  EXPECT_NE(stop, RunStop::script_limit);  // SHUTDOWN NOSAVE ended the script
  EXPECT_TRUE(node_crashed);
  ASSERT_EQ(real.size(), shutdown_while_busy.size() + 2);
  EXPECT_EQ(real[1],
            "-BUSY Redis is busy running a script. You can only call SCRIPT KILL or SHUTDOWN "
            "NOSAVE.");
  EXPECT_EQ(real[4], "-ERR No shutdown in progress.");
  EXPECT_EQ(real.back(), "no reply");  // the caller's connection closed with the server
}

}  // namespace
}  // namespace redlock_sim
