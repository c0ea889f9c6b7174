// The lock scripts run in C++ (sim/redis/scripting.cpp, "Lock scripts run in C++") are the Lua
// scripts to anything that can tell: over generated command sequences, an engine running them in
// C++ and one running every script in Lua give the same replies, the same effects to replicas and
// the AOF, and the same Lua state (its memory count, read by a script, after the runs owed to it
// are made). Sequences mix lock-script runs with keys of the wrong type, expiries, time passing,
// missing keys and arguments, SCRIPT FLUSH, other scripts, a replica refusing writes and a small
// Lua memory budget.
#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include <algorithm>
#include <cctype>
#include <string>
#include <tuple>
#include <vector>

#include "lock_impls/families/scripts.hpp"
#include "sim/redis/engine.hpp"
#include "sim/redis/lua_heap.hpp"
#include "sim/redis/scripting.hpp"

namespace redlock_sim {
namespace {

const Script* const lock_scripts[] = {&scripts::delete_if_value,
                                      &scripts::delete_if_value_or_report_missing,
                                      &scripts::pexpire_if_value};

// A script that is not one of them: it reads the Lua state's memory count and leaves garbage.
constexpr const char* probe = R"(
  local count = collectgarbage('count')
  local garbage = {}
  for i = 1, 40 do garbage[i] = ARGV[1] .. i end
  return tostring(count))";

// One step: what, on which key, with which value, and a number (a TTL, a script, a count).
using Step = std::tuple<int, int, int, int>;

// A script's digest, in capitals at times (EVALSHA takes either).
std::string digest(const Script& script, bool capitals) {
  std::string sha = script_sha1(script.text);
  if (capitals) {
    for (char& c : sha)
      c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  }
  return sha;
}

// PEXPIRE's milliseconds: mostly positive, at times negative (the key goes) or not a number
// (PEXPIRE's error, so the script is handed to Lua after its GET).
std::string ttl(int number) {
  if ((number / 192) % 8 == 0) return "soon";
  return std::to_string(number % 1000 - 100);
}

Command step_command(const Step& step, int64_t& now_ms, bool& from_master) {
  const auto [what, key_index, value_index, number] = step;
  const std::string key = "lock:" + std::to_string(key_index % 3);
  const std::string value = "token-" + std::to_string(value_index % 3) + "-of-twenty-bytes";
  from_master = false;
  switch (what % 9) {
    case 0:
      from_master = true;  // on a replica, the master's write
      return make_command("SET", key, value, "PX", std::to_string(1 + number % 3000));
    case 1:
      from_master = true;
      return make_command("SET", key, value);
    case 2:
      from_master = true;
      return make_command("LPUSH", key, value);  // a key of the wrong type
    case 3:
      now_ms += number % 2500;  // time passes (expiries), then a read
      return make_command("GET", key);
    case 4:
      return make_command("EVAL", probe, "0", value);
    case 5:
      return make_command("SCRIPT", "FLUSH");
    default: {
      // A lock script, by body or digest, with 0-2 keys and 0-3 arguments.
      const Script& script = *lock_scripts[number % 3];
      const bool by_sha = (number / 3) % 2 == 1;
      const int keys = (number / 6) % 4 == 0 ? 0 : (number / 6) % 4 == 3 ? 2 : 1;
      const int args = (number / 24) % 4;
      Command command{by_sha ? "EVALSHA" : "EVAL",
                      by_sha ? digest(script, (number / 96) % 2 == 1) : std::string(script.text),
                      std::to_string(keys)};
      for (int k = 0; k < keys; ++k)
        command.push_back(k == 0 ? key : "other");
      for (int a = 0; a < args; ++a)
        command.push_back(a == 0 ? value : a == 1 ? ttl(number) : "0");
      return command;
    }
  }
}

struct Side {
  std::vector<Reply> replies;
  std::vector<Propagated> propagated;
  std::size_t owed_max = 0;
  std::size_t lua_memory = 0;           // once the owed runs are made
  std::vector<SnapshotEntry> keyspace;  // at the end
};

Side run_side(const std::vector<Step>& steps, const EngineOptions& options, bool native) {
  ScriptRunner::run_known_scripts_natively(native);
  Side side;
  RedisEngine engine(options);
  int64_t now_ms = 1'767'225'600'000;
  for (const Step& step : steps) {
    bool from_master = false;
    const Command command = step_command(step, now_ms, from_master);
    Reply reply = engine.execute(command, ExecutionContext{Instant::from_ms(now_ms), from_master},
                                 side.propagated);
    // Without the pool (AddressSanitizer) each side's state is built apart, and the probe's
    // count after churn depends on where the blocks are: its reply is left out there.
    const bool probe_step = std::get<0>(step) % 9 == 4;
    side.replies.push_back(probe_step && !LuaHeap::pooled ? Reply{} : std::move(reply));
    side.owed_max = std::max(side.owed_max, engine.owed_script_runs());
  }
  side.lua_memory = engine.script_memory_after_catch_up();
  side.keyspace = engine.snapshot();
  ScriptRunner::run_known_scripts_natively(true);
  return side;
}

void run_both(const std::vector<Step>& steps, const EngineOptions& options) {
  // Both sides get the same Lua state from this thread's pool, restored to the same addresses:
  // the memory count of a state that churned depends on where its blocks are, so two states
  // built apart can differ with no C++ run at all (docs/decisions.md, fourth part). The first
  // engine lets the thread take images; the second's state, with one, goes to the pool.
  for (int i = 0; i < 2; ++i) {
    RedisEngine engine(options);
    engine.script_memory_after_catch_up();  // opens its state
  }
  const Side native = run_side(steps, options, true);
  const Side lua = run_side(steps, options, false);
  RC_ASSERT(native.replies == lua.replies);
  RC_ASSERT(native.propagated == lua.propagated);
  RC_ASSERT(native.keyspace == lua.keyspace);
  RC_ASSERT(lua.owed_max == 0u);
  if (LuaHeap::pooled) RC_ASSERT(native.lua_memory == lua.lua_memory);  // no pool under ASan
  RC_TAG(native.owed_max > 0 ? "some runs owed" : "none owed");
}

std::vector<Step> steps() {
  return *rc::gen::container<std::vector<Step>>(
      rc::gen::tuple(rc::gen::inRange(0, 16), rc::gen::inRange(0, 3), rc::gen::inRange(0, 3),
                     rc::gen::inRange(0, 100'000)));
}

RC_GTEST_PROP(NativeScripts, OnAMasterTheyAreTheLuaScripts, ()) {
  run_both(steps(), EngineOptions{});
}

RC_GTEST_PROP(NativeScripts, OnAReplicaTheyAreTheLuaScripts, ()) {
  run_both(steps(), EngineOptions{.replica = true});
}

// Under 4 MB the runner cannot show Lua would have had room: every run is made in Lua, and
// a 6 MB budget lets a few runs be owed before one must be made in Lua.
RC_GTEST_PROP(NativeScripts, UnderASmallMemoryBudgetTheyAreTheLuaScripts, ()) {
  const std::size_t budget = *rc::gen::element<std::size_t>(1u << 20, 4u << 20, 6u << 20);
  run_both(steps(), EngineOptions{.script_memory_bytes_max = budget});
}

}  // namespace
}  // namespace redlock_sim
