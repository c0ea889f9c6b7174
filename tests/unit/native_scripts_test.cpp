// The lock scripts lock_impls sends most (compare-and-delete, redsync's delete, compare-and-
// PEXPIRE) run in C++ with their runs owed to the Lua state (sim/redis/scripting.cpp); the
// property tests (tests/property/native_scripts_properties.cpp) check they are the Lua scripts
// to anything that can tell. Here: they are recognised by their digests, owed runs are made in
// Lua before another script runs, and a run whose Lua body would raise is Lua's.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "lock_impls/families/scripts.hpp"
#include "sim/redis/engine.hpp"
#include "sim/redis/scripting.hpp"
#include "tests/unit/engine_harness.hpp"

namespace redlock_sim {
namespace {

using Harness = test_support::EngineHarness;

Command eval(const Script& script, const std::vector<std::string>& keys_then_args,
             std::size_t keys = 1) {
  Command command{"EVAL", std::string(script.text), std::to_string(keys)};
  command.insert(command.end(), keys_then_args.begin(), keys_then_args.end());
  return command;
}

TEST(NativeScripts, TheLockScriptsRunInCppAndAreOwedToLua) {
  Harness h;
  for (const Script* script : {&scripts::pexpire_if_value, &scripts::delete_if_value,
                               &scripts::delete_if_value_or_report_missing}) {
    h.run(make_command("SCRIPT", "LOAD", std::string(script->text)));
  }
  h.run(make_command("SET", "lock", "mine", "PX", "10000"));
  EXPECT_TRUE(h.run(eval(scripts::pexpire_if_value, {"lock", "mine", "20000"})).is_integer(1));
  EXPECT_TRUE(h.run(eval(scripts::delete_if_value, {"lock", "theirs"})).is_integer(0));
  EXPECT_TRUE(h.run(eval(scripts::delete_if_value, {"lock", "mine"})).is_integer(1));
  EXPECT_TRUE(
      h.run(eval(scripts::delete_if_value_or_report_missing, {"lock", "mine"})).is_integer(-1));
  EXPECT_EQ(h.engine.owed_script_runs(), 3u + 4u);  // three compilations, four runs
  // Another script uses the Lua state: the owed runs are made first.
  EXPECT_TRUE(h.run(make_command("EVAL", "return 7", "0")).is_integer(7));
  EXPECT_EQ(h.engine.owed_script_runs(), 0u);
  // The DEL went to replicas and the AOF as the script's effect.
  ASSERT_FALSE(h.propagated.empty());
  EXPECT_EQ(h.propagated.back().command, make_command("DEL", "lock"));
}

TEST(NativeScripts, ARunWhoseLuaBodyRaisesIsLuas) {
  std::vector<Reply> replies;
  for (const bool native : {true, false}) {
    ScriptRunner::run_known_scripts_natively(native);
    Harness h;
    h.run(make_command("LPUSH", "lock", "x"));
    replies.push_back(h.run(eval(scripts::delete_if_value, {"lock", "mine"})));
    replies.push_back(h.run(eval(scripts::delete_if_value, {}, 0)));  // KEYS[1] is nil
    EXPECT_EQ(h.engine.owed_script_runs(), 0u);
  }
  ScriptRunner::run_known_scripts_natively(true);
  ASSERT_TRUE(replies[0].is_error());
  EXPECT_NE(replies[0].text.find("WRONGTYPE"), std::string::npos) << replies[0].text;
  EXPECT_EQ(replies[0], replies[2]);
  ASSERT_TRUE(replies[1].is_error());
  EXPECT_EQ(replies[1], replies[3]);
}

// A node that only runs them opens no Lua state; the first other script opens one and makes
// the owed compilations and runs there first.
TEST(NativeScripts, ALuaStateIsOpenedWhenFirstUsed) {
  ScriptRunner::reuse_states(false);
  const std::size_t built = ScriptRunner::states_built();
  Harness h;
  h.run(make_command("SET", "lock", "mine"));
  EXPECT_TRUE(h.run(eval(scripts::delete_if_value, {"lock", "mine"})).is_integer(1));
  EXPECT_EQ(ScriptRunner::states_built(), built);
  EXPECT_TRUE(h.run(make_command("EVAL", "return 7", "0")).is_integer(7));
  EXPECT_EQ(ScriptRunner::states_built(), built + 1);
  EXPECT_EQ(h.engine.owed_script_runs(), 0u);
  ScriptRunner::reuse_states(true);
}

TEST(NativeScripts, SCRIPTFLUSHDropsTheOwedRunsWithTheState) {
  Harness h;
  h.run(make_command("SET", "lock", "mine"));
  h.run(eval(scripts::delete_if_value, {"lock", "theirs"}));
  EXPECT_EQ(h.engine.owed_script_runs(), 2u);  // its compilation and its run
  h.run(make_command("SCRIPT", "FLUSH"));
  EXPECT_EQ(h.engine.owed_script_runs(), 0u);
}

// A sequence of native runs whose GETs answer a long value, nothing, a short one and a wrong
// type (Lua's) replies and propagates what Lua alone does, owed runs made in Lua included.
TEST(NativeScripts, RunsAfterOneAnotherAnswerAsLuaDoes) {
  std::vector<std::vector<Reply>> replies;
  std::vector<std::vector<Propagated>> propagated;
  for (const bool native : {true, false}) {
    ScriptRunner::run_known_scripts_natively(native);
    Harness h;
    std::vector<Reply>& got = replies.emplace_back();
    h.run(make_command("SET", "lock", std::string(200, 't'), "PX", "10000"));
    got.push_back(h.run(eval(scripts::delete_if_value, {"lock", "mine"})));
    got.push_back(h.run(eval(scripts::delete_if_value_or_report_missing, {"gone", "mine"})));
    h.run(make_command("SET", "lock", "mine", "PX", "10000"));
    got.push_back(h.run(eval(scripts::pexpire_if_value, {"lock", "mine", "20000"})));
    got.push_back(h.run(eval(scripts::delete_if_value, {"lock", "mine"})));
    h.run(make_command("LPUSH", "list", "x"));
    got.push_back(h.run(eval(scripts::delete_if_value, {"list", "mine"})));
    got.push_back(h.run(make_command("EVAL", "return 7", "0")));
    EXPECT_EQ(h.engine.owed_script_runs(), 0u);
    propagated.push_back(h.propagated);
  }
  ScriptRunner::run_known_scripts_natively(true);
  EXPECT_EQ(replies[0], replies[1]);
  EXPECT_EQ(propagated[0], propagated[1]);
  ASSERT_EQ(replies[0].size(), 6u);
  EXPECT_TRUE(replies[0][0].is_integer(0));
  EXPECT_TRUE(replies[0][1].is_integer(-1));
  EXPECT_TRUE(replies[0][2].is_integer(1));
  EXPECT_TRUE(replies[0][3].is_integer(1));
  EXPECT_TRUE(replies[0][4].is_error());
}

// An owed run whose GET read back the caller's own token records it as the token argument's
// index (not a second copy): caught up with two keys before ARGV[1], Lua gets the token again,
// so the runs, their effects and Lua's memory count are what Lua alone makes of them.
TEST(NativeScripts, AGetOfTheCallersTokenIsCaughtUpAsThatArgument) {
  std::vector<std::vector<Reply>> replies;
  std::vector<std::vector<Propagated>> propagated;
  for (const bool native : {true, false}) {
    ScriptRunner::run_known_scripts_natively(native);
    Harness h;
    std::vector<Reply>& got = replies.emplace_back();
    const std::string token(50, 'k');
    h.run(make_command("SET", "lock", token, "PX", "10000"));
    got.push_back(h.run(eval(scripts::pexpire_if_value, {"lock", "other", token, "20000"}, 2)));
    got.push_back(h.run(eval(scripts::delete_if_value, {"lock", "other", token}, 2)));
    got.push_back(h.run(make_command("EVAL", "return tostring(collectgarbage('count'))", "0")));
    EXPECT_EQ(h.engine.owed_script_runs(), 0u);
    propagated.push_back(h.propagated);
  }
  ScriptRunner::run_known_scripts_natively(true);
  EXPECT_EQ(replies[0], replies[1]);
  EXPECT_EQ(propagated[0], propagated[1]);
  ASSERT_EQ(replies[0].size(), 3u);
  EXPECT_TRUE(replies[0][0].is_integer(1));
  EXPECT_TRUE(replies[0][1].is_integer(1));
}

// EVAL reads a one-character key count itself: a digit is the count, any other character (the
// bytes either side of '0'-'9' included) is Redis's not-an-integer error, as are longer counts
// that parse_int64 refuses; longer ones it takes are counts too.
TEST(NativeScripts, AOneCharacterKeyCountIsADigitOrNotAnInteger) {
  Harness h;
  const Reply not_integer = Reply::error("ERR value is not an integer or out of range");
  const auto count_keys = [&](const std::string& count, std::vector<std::string> rest) {
    Command command{"EVAL", "return #KEYS", count};
    command.insert(command.end(), rest.begin(), rest.end());
    return h.run(command);
  };
  EXPECT_TRUE(count_keys("0", {}).is_integer(0));
  EXPECT_TRUE(count_keys("1", {"a", "b"}).is_integer(1));
  EXPECT_TRUE(count_keys("9", {"1", "2", "3", "4", "5", "6", "7", "8", "9"}).is_integer(9));
  EXPECT_EQ(count_keys("9", {"1"}),
            Reply::error("ERR Number of keys can't be greater than number of args"));
  EXPECT_TRUE(count_keys("10", {"1", "2", "3", "4", "5", "6", "7", "8", "9", "10"}).is_integer(10));
  for (const char* bad : {"/", ":", "x", " ", "-", "", "01", "1x"}) {
    EXPECT_EQ(count_keys(bad, {"a"}), not_integer) << bad;
  }
  EXPECT_EQ(count_keys("-1", {"a"}), Reply::error("ERR Number of keys can't be negative"));
}

// A script made in Lua takes the busy threshold in force when it runs, whatever native runs came
// between it and a CONFIG SET (native runs no longer set the count hook's bounds; this guards
// that move, and passed before it too, when every run set them).
TEST(NativeScripts, ALuaRunGoesBusyAtTheThresholdInForceWhenItRuns) {
  Harness h;
  const std::string loop = "local n = 0 for i = 1, 20000 do n = n + i end return n";
  h.run(make_command("SET", "lock", "mine"));
  const auto native_run = [&] {
    EXPECT_TRUE(h.run(eval(scripts::pexpire_if_value, {"lock", "mine", "20000"})).is_integer(1));
    EXPECT_NE(h.engine.owed_script_runs(), 0u);  // made in C++
  };
  for (const char* threshold_ms : {"5000", "1", "5000"}) {
    EXPECT_TRUE(h.run(make_command("CONFIG", "SET", "busy-reply-threshold", threshold_ms)).is_ok());
    native_run();
    EXPECT_TRUE(h.run(make_command("EVAL", loop, "0")).is_integer(200010000));
    EXPECT_EQ(h.engine.last_script_run().busy, std::string(threshold_ms) == "1") << threshold_ms;
  }
}

}  // namespace
}  // namespace redlock_sim
