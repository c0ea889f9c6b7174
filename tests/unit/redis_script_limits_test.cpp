// Scripts that never end, nest without end or grow without end are bounded outcomes with the
// reply Redis gives (issue 14), and the Lua environment keeps one script from changing the next.
// Reply texts were taken from a real redis-server 7.0.15 (SCRIPT KILL sent from a second client).
#include <gtest/gtest.h>

#include <string>

#include "sim/redis/engine.hpp"

namespace redlock_sim {
namespace {

constexpr int64_t now_ms = 1'767'225'600'000;

struct Harness {
  RedisEngine engine;
  std::vector<Propagated> propagated;
  explicit Harness(EngineOptions options = {}) : engine(std::move(options)) {}
  Reply eval(const std::string& script) {
    return engine.execute(make_command("EVAL", script, "0"),
                          ExecutionContext{Instant::from_ms(now_ms)}, propagated);
  }
};

// A small budget keeps the endless scripts quick; the default is 100 000 000 instructions.
EngineOptions small_budget() {
  return EngineOptions{.script_instructions_max = 1'000'000};
}

// `while true do end` and an endless tail call end with the reply 7.0 gives a killed script.
TEST(RedisScriptLimits, EndlessScriptsAreKilledWithRedisReply) {
  Harness h(small_budget());
  EXPECT_EQ(h.eval("while true do end").text,
            "ERR Script killed by user with SCRIPT KILL... script: "
            "694a5fe1ddb97a4c6a1bf299d9537c7d3d0f84e7, on @user_script:1.");
  EXPECT_EQ(h.eval("local function f() return f() end return f()").text,
            "ERR Script killed by user with SCRIPT KILL... script: "
            "197e879a891c46126021783a9b088ddb17a16d9e, on @user_script:1.");
  EXPECT_EQ(h.engine.script_limits().killed, 2u);
  EXPECT_EQ(h.engine.script_limits().unkillable, 0u);
  // The next script runs with a fresh budget.
  EXPECT_TRUE(h.eval("local n = 0 for i = 1, 1000 do n = n + i end return n").is_integer(500500));
}

// Pattern matching runs in C, out of the count hook's reach: its steps come out of the same
// budget, so a pathological pattern is killed too (issue 14's example).
TEST(RedisScriptLimits, PathologicalPatternIsKilled) {
  Harness h(small_budget());
  const Reply reply = h.eval("return string.find(string.rep('a', 100000), '.-.-.-.-.-.-.-.-.-b')");
  EXPECT_EQ(reply.text,
            "ERR Script killed by user with SCRIPT KILL... script: "
            "032831f055b845f5d3d5bd575e9373b9276bcff7, on @user_script:1.");
  EXPECT_EQ(h.engine.script_limits().killed, 1u);
  EXPECT_TRUE(h.eval("return string.find(string.rep('a', 100000) .. 'b', 'a-b')").is_integer(1));
}

// pcall and xpcall inside the script cannot keep a killed script alive.
TEST(RedisScriptLimits, PcallCannotSwallowTheKill) {
  Harness h(small_budget());
  const Reply reply = h.eval(
      "while true do pcall(function() while true do end end) "
      "xpcall(function() while true do end end, function(e) return e end) end");
  EXPECT_EQ(reply.text.rfind("ERR Script killed by user with SCRIPT KILL... script: ", 0), 0u)
      << reply.text;
}

// After the kill the hook raises at each new line, as 7.0's: a pcall that catches it and returns
// on the same line ends the script normally, with the text 7.0's pcall gives ("ERR ..."); on
// the next line the kill comes back. (Each reply as redis-server 7.0.15 gave it after SCRIPT
// KILL.)
TEST(RedisScriptLimits, KillComesBackAtTheNextLine) {
  Harness h(small_budget());
  EXPECT_TRUE(h.eval("return pcall(function() while true do end end)").is_nil());
  EXPECT_EQ(h.eval("local ok, e = pcall(function() while true do end end) return e"),
            Reply::bulk("ERR Script killed by user with SCRIPT KILL..."));
  EXPECT_EQ(h.eval("local ok, e = pcall(function() while true do end end)\nreturn e").text,
            "ERR Script killed by user with SCRIPT KILL... script: "
            "244ca8913ce953722de8a290b29696ee562c4b18, on @user_script:2.");
  EXPECT_EQ(h.engine.script_limits().killed, 3u);
}

// A script that wrote before the budget ran out is counted apart: real Redis refuses SCRIPT KILL
// for it (UNKILLABLE), so the model reports the limit rather than pretending.
TEST(RedisScriptLimits, ScriptThatWroteIsReportedUnkillable) {
  Harness h(small_budget());
  EXPECT_TRUE(h.eval("redis.call('set', 'k', 'v') while true do end").is_error());
  EXPECT_EQ(h.engine.script_limits().unkillable, 1u);
  EXPECT_EQ(h.engine.script_limits().killed, 0u);
}

// Self-referencing and 100 000-deep tables stop at the Lua stack limit as in 7.0.15: 7995 nested
// arrays, the innermost element the error "reached lua stack limit".
TEST(RedisScriptLimits, DeepAndCyclicRepliesStopAtTheLuaStackLimit) {
  Harness h;
  for (const char* script : {"local t = {} t[1] = t return t",
                             "local t = {} for i = 1, 100000 do t = {t} end return t"}) {
    SCOPED_TRACE(script);
    const Reply reply = h.eval(script);
    const Reply* level = &reply;
    int arrays = 0;
    while (level->type == ReplyType::array) {
      ASSERT_EQ(level->elements.size(), 1u);
      ++arrays;
      level = &level->elements[0];
    }
    EXPECT_EQ(arrays, 7995);
    EXPECT_EQ(level->type, ReplyType::error);
    EXPECT_EQ(level->text, "ERR reached lua stack limit");
  }
}

// A Lua state holds at most script_memory_bytes_max; past it the script fails with a reported
// limit instead of taking the machine's memory (real Redis has no such bound).
TEST(RedisScriptLimits, HugeStringsHitTheMemoryBudget) {
  Harness h(EngineOptions{.script_memory_bytes_max = 8u << 20});
  const Reply reply = h.eval("return string.rep('x', 100000000):len()");
  EXPECT_EQ(reply.text,
            "ERR Error running script 04ec0f5067fa910e99ac9c33ce5f97b1ba12b01e, out of the "
            "model's Lua memory (8388608 bytes)");
  EXPECT_EQ(h.engine.script_limits().out_of_memory, 1u);
  EXPECT_TRUE(h.eval("return string.rep('x', 1000):len()").is_integer(1000));
}

// A reply that repeats one large string (1 MB held once by Lua, 10 000 times in the reply: 10 GB
// to build) is refused with a reported limit, counted against the same budget, and the node
// goes on (it ended in std::bad_alloc, issue 14).
TEST(RedisScriptLimits, HugeRepliesHitTheMemoryBudget) {
  Harness h(EngineOptions{.script_memory_bytes_max = 64u << 20});
  const Reply reply = h.eval(
      "local s = string.rep('x', 1000000) local t = {} for i = 1, 10000 do t[i] = s end "
      "return t");
  EXPECT_EQ(reply.text,
            "ERR Error running script 4def16e97d7dfb5987c446095676ffe8dbfb7a17, its reply is "
            "larger than the model's Lua memory (67108864 bytes)");
  EXPECT_EQ(h.engine.script_limits().out_of_memory, 1u);
  const Reply small = h.eval("local t = {} for i = 1, 1000 do t[i] = 'x' end return t");
  EXPECT_EQ(small.elements.size(), 1000u);
}

// What a script writes into the keyspace counts against its Lua memory budget: a 1 MB string
// SET under 100 keys (100 MB outside the Lua state) is refused with the out-of-memory reply once
// the writes pass 64 MB, and the keys written before stay (it ended in std::bad_alloc with 50 MB
// under 100 keys, issue 14). Reads cost nothing.
TEST(RedisScriptLimits, WritesCountAgainstTheMemoryBudget) {
  Harness h(EngineOptions{.script_memory_bytes_max = 64u << 20});
  const Reply reply =
      h.eval("local s = string.rep('x', 1000000) for i = 1, 100 do redis.call('set', i, s) end");
  EXPECT_EQ(reply.text.rfind("ERR Error running script ", 0), 0u) << reply.text;
  EXPECT_NE(reply.text.find("out of the model's Lua memory (67108864 bytes)"), std::string::npos);
  EXPECT_EQ(h.engine.key_count(), 67u);  // 67 MB of writes fit in 64 MiB
  EXPECT_TRUE(
      h.eval("for i = 1, 100000 do redis.call('get', 'missing') end return 1").is_integer(1));
}

// cjson.encode runs in C: its output is bounded by the Lua memory budget and its walk by the
// instruction budget before cjson starts (one 1 MB string shared 10 000 times would be 10 GB;
// a table shared at every level of 60 would take 2^60 steps).
TEST(RedisScriptLimits, CjsonEncodeIsBounded) {
  Harness h(
      EngineOptions{.script_instructions_max = 1'000'000, .script_memory_bytes_max = 64u << 20});
  const Reply huge = h.eval(
      "local s = string.rep('x', 1000000) local t = {} for i = 1, 10000 do t[i] = s end "
      "return #cjson.encode(t)");
  EXPECT_EQ(huge.text,
            "ERR Error running script fb8e080763758ec0089a3e7802790a54e0cce338, out of the model's "
            "Lua memory (67108864 bytes)");
  const Reply shared =
      h.eval("local t = {1} for i = 1, 60 do t = {t, t} end return #cjson.encode(t)");
  EXPECT_EQ(shared.text.rfind("ERR Script killed by user with SCRIPT KILL...", 0), 0u)
      << shared.text;
  EXPECT_TRUE(h.eval("return #cjson.encode({string.rep('x', 1000), {1, 2}})").is_integer(1010));
}

// Redis's math.random: its redisLrand48 sequence, shared by the scripts of a server (first
// values on a fresh 7.0.15: 397 then 841), and math.randomseed(n) restarts it.
TEST(RedisScriptLimits, MathRandomIsRedisSequence) {
  Harness h;
  EXPECT_EQ(h.eval("return tostring(math.random(1,1000))..' '..tostring(math.random(1,1000))"),
            Reply::bulk("397 841"));
  EXPECT_EQ(h.eval("return tostring(math.random(1,1000))..' '..tostring(math.random(1,1000)) "),
            Reply::bulk("354 447"));
  EXPECT_EQ(h.eval("math.randomseed(0) return tostring(math.random())"),
            Reply::bulk("0.17082803611217"));
  EXPECT_EQ(h.eval("math.randomseed(42) return tostring(math.random(1,1000))"), Reply::bulk("745"));
}

// What one script does cannot change what the next sees (7.0 refuses each of these).
TEST(RedisScriptLimits, ScriptsAreKeptApart) {
  Harness h;
  for (const char* script :
       {"evil = 42", "rawset(_G, 'evil', 42)", "getmetatable('').__index.rep = 1",
        "rawset(getmetatable('').__index, 'rep', 1)", "getmetatable('').__index = nil",
        "table.insert(string, 'x')", "getmetatable(string).__index.rep = 1",
        "setmetatable(getmetatable(''), {})", "math.random = nil"}) {
    SCOPED_TRACE(script);
    EXPECT_TRUE(h.eval(script).is_error());
  }
  EXPECT_EQ(h.eval("return ('ab'):rep(2) .. string.rep('c', 2) .. type(string[1])"),
            Reply::bulk("ababccnil"));
  EXPECT_EQ(
      h.eval("return type(evil)")
          .text.rfind(
              "ERR user_script:1: Script attempted to access nonexistent global variable 'evil'",
              0),
      0u);
}

}  // namespace
}  // namespace redlock_sim

namespace redlock_sim {
namespace {

// cmsgpack walks tables in C: a table that holds itself ten times is 10^16 values at its nesting
// limit (7.0 hangs there, unkillable); each value is a step of the budget, so it is killed.
TEST(RedisScriptLimits, CmsgpackOfASelfHoldingTableIsKilled) {
  Harness h(small_budget());
  const Reply reply = h.eval("local t = {} for i = 1, 10 do t[i] = t end return cmsgpack.pack(t)");
  EXPECT_EQ(reply.text.rfind("ERR Script killed by user with SCRIPT KILL... script: ", 0), 0u)
      << reply.text;
  EXPECT_EQ(h.engine.script_limits().killed, 1u);
  EXPECT_TRUE(h.eval("return cmsgpack.pack(1)").type == ReplyType::bulk);
}

// 9000 nested maps overflow 7.0's Lua stack (it checks arrays only); the model refuses them with
// Lua's stack error like 9000 nested arrays, and the node goes on.
TEST(RedisScriptLimits, CmsgpackDeepMapsAreRefused) {
  Harness h(small_budget());
  for (const char* header : {"0x91", "0x81, 0xa1, 0x6b"}) {
    const Reply reply = h.eval(std::string("return cmsgpack.unpack(string.rep(string.char(") +
                               header + "), 9000) .. string.char(1))");
    EXPECT_TRUE(reply.is_error()) << header;
    EXPECT_NE(reply.text.find("stack overflow"), std::string::npos) << reply.text;
  }
  EXPECT_TRUE(h.eval("return 1").is_integer(1));
}

}  // namespace
}  // namespace redlock_sim
