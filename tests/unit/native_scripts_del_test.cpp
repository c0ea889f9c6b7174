// A native lock script's DEL is made without building its argv or going through
// call_from_script (ScriptRunner::native_del): it answers, refuses, propagates and notes its
// write as the general path and Lua do, on a master, on a replica (refused unless from its
// master) and on a key that expired. Its GET's reply is read in the keyspace, not copied
// (ScriptRunner::NativeGet): what is owed to Lua is the value read even when the run deletes the
// key after.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "lock_impls/families/scripts.hpp"
#include "sim/redis/engine.hpp"
#include "sim/redis/scripting.hpp"

namespace redlock_sim {
namespace {

constexpr int64_t now_ms = 1'767'225'600'000;

Command eval(const Script& script, const std::string& key, const std::string& value) {
  return make_command("EVAL", std::string(script.text), "1", key, value);
}

struct Seen {
  std::vector<Reply> replies;
  std::vector<Propagated> propagated;
  std::vector<uint64_t> wrote_at;
  std::vector<std::size_t> keys;
  friend bool operator==(const Seen&, const Seen&) = default;
};

Seen run_all(bool native) {
  ScriptRunner::run_known_scripts_natively(native);
  Seen seen;
  const auto record = [&](RedisEngine& engine, const Command& command, int64_t at_ms,
                          bool from_master) {
    seen.replies.push_back(engine.execute(
        command, ExecutionContext{Instant::from_ms(at_ms), from_master}, seen.propagated));
    seen.wrote_at.push_back(engine.last_script_run().wrote_at);
    seen.keys.push_back(engine.key_count());
  };
  for (const Script* script :
       {&scripts::delete_if_value, &scripts::delete_if_value_or_report_missing}) {
    // A master: ours (deleted), theirs, missing, expired (GET deletes it first).
    RedisEngine master;
    record(master, make_command("SET", "lock", "mine", "PX", "100"), now_ms, false);
    record(master, eval(*script, "lock", "theirs"), now_ms, false);
    record(master, eval(*script, "lock", "mine"), now_ms, false);
    record(master, eval(*script, "lock", "mine"), now_ms, false);
    record(master, make_command("SET", "lock", "mine", "PX", "100"), now_ms, false);
    record(master, eval(*script, "lock", "mine"), now_ms + 200, false);
    // A replica: its clients' DEL refused (READONLY, from Lua), its master's applied; an expired
    // key still read by the master's stream.
    RedisEngine replica(EngineOptions{.replica = true});
    replica.restore({{"lock", Value{.string = "mine", .expire_at_ms = now_ms + 100}}},
                    Instant::from_ms(now_ms), false);
    record(replica, eval(*script, "lock", "mine"), now_ms, false);
    record(replica, eval(*script, "lock", "mine"), now_ms + 200, true);
    record(replica, eval(*script, "lock", "mine"), now_ms + 200, true);
  }
  ScriptRunner::run_known_scripts_natively(true);
  return seen;
}

TEST(NativeScripts, ADelAnswersRefusesAndPropagatesAsLuasDoes) {
  const Seen native = run_all(true);
  const Seen lua = run_all(false);
  ASSERT_GE(native.propagated.size(), 2u);
  EXPECT_TRUE(native.propagated[1].command.compact());  // DEL lock, kept compact (until read)
  EXPECT_EQ(native.replies, lua.replies);
  EXPECT_EQ(native.propagated, lua.propagated);
  EXPECT_EQ(native.wrote_at, lua.wrote_at);
  EXPECT_EQ(native.keys, lua.keys);
  // What that is, for the first script.
  ASSERT_EQ(native.replies.size(), 18u);
  EXPECT_TRUE(native.replies[1].is_integer(0));
  EXPECT_TRUE(native.replies[2].is_integer(1));
  EXPECT_TRUE(native.replies[3].is_integer(0));
  EXPECT_TRUE(native.replies[5].is_integer(0));  // expired: GET deleted it
  EXPECT_TRUE(native.replies[6].is_error());
  EXPECT_NE(native.replies[6].text.find("READONLY"), std::string::npos) << native.replies[6].text;
  EXPECT_TRUE(native.replies[7].is_integer(1));  // from the master, expired or not
  EXPECT_TRUE(native.replies[8].is_integer(0));
  EXPECT_EQ(native.wrote_at[2], 0u);                // it wrote
  EXPECT_EQ(native.wrote_at[1], ScriptRun::never);  // it did not
  EXPECT_EQ(native.propagated[1].command, make_command("DEL", "lock"));
}

// The compare-and-PEXPIRE script with a time already past deletes the key it read; its owed run,
// made in Lua when another script comes, is answered the value it read. Replies, propagation and
// the keyspace as Lua alone makes them.
TEST(NativeScripts, ARunThatDeletesTheKeyItReadOwesWhatItRead) {
  std::vector<std::vector<Reply>> replies;
  std::vector<std::vector<Propagated>> propagated;
  std::vector<std::size_t> keys;
  for (const bool native : {true, false}) {
    ScriptRunner::run_known_scripts_natively(native);
    RedisEngine engine;
    std::vector<Propagated>& effects = propagated.emplace_back();
    std::vector<Reply>& got = replies.emplace_back();
    const auto run = [&](const Command& command) {
      got.push_back(engine.execute(command, ExecutionContext{Instant::from_ms(now_ms)}, effects));
    };
    const std::string token(300, 't');  // past a kept node's room: the deleted key is freed
    run(make_command("SET", "lock", token, "PX", "10000"));
    run(make_command("EVAL", std::string(scripts::pexpire_if_value.text), "1", "lock", token,
                     "-5"));
    run(make_command("SET", "lock", token, "PX", "10000"));
    run(eval(scripts::delete_if_value, "lock", token));
    if (native) {
      EXPECT_EQ(engine.owed_script_runs(), 4u);  // two compilations, two runs
    }
    run(make_command("EVAL", "return redis.call('exists', 'lock')", "0"));
    EXPECT_EQ(engine.owed_script_runs(), 0u);
    keys.push_back(engine.key_count());
  }
  ScriptRunner::run_known_scripts_natively(true);
  EXPECT_EQ(replies[0], replies[1]);
  EXPECT_EQ(propagated[0], propagated[1]);
  EXPECT_EQ(keys[0], keys[1]);
  ASSERT_EQ(replies[0].size(), 5u);
  EXPECT_TRUE(replies[0][1].is_integer(1));
  EXPECT_TRUE(replies[0][3].is_integer(1));
  EXPECT_TRUE(replies[0][4].is_integer(0));
}

}  // namespace
}  // namespace redlock_sim
