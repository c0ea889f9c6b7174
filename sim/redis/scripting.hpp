// EVAL/EVALSHA/SCRIPT: an embedded Lua 5.1 set up as Redis 7.0 sets up its own.
//
// - Sandbox: base, table, string and math libraries; no os/io/loadfile/dofile/print/getfenv/
//   setfenv/newproxy; globals are read-only ("Attempt to modify a readonly table") and reading a
//   missing global is an error ("Script attempted to access nonexistent global variable").
//   Redis 7.0 patches its Lua VM for read-only tables; stock Lua 5.1 has no such flag, so the
//   script's environment, the library tables and the string metatable are read-only proxies, and
//   rawset/setmetatable/table.insert/getmetatable guard them. Bytecode is read as text.
// - Limits: instructions counted by a count hook (virtual time once past lua-time-limit: the node
//   answers others BUSY; SCRIPT KILL runs the script again up to the kill, see kill_last); a cap
//   that ends it as SCRIPT KILL would; a memory budget per Lua state; replies nested past the
//   Lua stack end in Redis's "reached lua stack limit".
// - redis.call/pcall/error_reply/status_reply/sha1hex/log/setresp/set_repl/replicate_commands,
//   with Redis's reply conversion both ways and its error texts.
// - Scripts cached by SHA-1; time is frozen for the whole script (one ExecutionContext); the
//   script's writes are propagated one by one, in MULTI/EXEC when there are several.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sim/redis/engine.hpp"
#include "sim/redis/lua_heap.hpp"

struct lua_State;

namespace redlock_sim {

struct LuaStateHome;

class ScriptRunner {
 public:
  explicit ScriptRunner(RedisEngine& engine);
  ~ScriptRunner();
  ScriptRunner(const ScriptRunner&) = delete;
  ScriptRunner& operator=(const ScriptRunner&) = delete;

  Reply eval(RedisEngine::Call& call, bool by_sha);
  Reply script_command(RedisEngine::Call& call);
  // SCRIPT FLUSH: a fresh Lua state and an empty cache, as Redis does.
  void flush();

  // Lua states given back are kept (per thread) and handed to the next runner restored to what
  // a new state is (see LuaStateHome in scripting.cpp); off, every runner builds its own.
  static void reuse_states(bool reuse);
  static std::size_t states_built();       // on this thread, for tests
  static std::size_t states_with_image();  // on all threads, for tests
  // States given back after a full collection (a cjson instance may have been made), for tests.
  static std::size_t states_collected();
  // Known lock scripts run in C++ with their runs owed to the Lua state (see run_native in
  // scripting.cpp); off, every script runs in Lua. Per thread; on by default.
  static void run_known_scripts_natively(bool native);
  // Runs (and lock scripts' compilations) owed to this runner's Lua state, for tests.
  std::size_t owed_runs() const { return owed_runs_; }
  // Opens the Lua state if none is open (a runner opens one when first needed) and makes the
  // owed runs in it.
  void catch_up();

  // Used by the Lua C functions (scripting.cpp).
  // `spec` is RedisEngine::find_command(argv[0]), which the caller already looked up.
  Reply call_from_script(const Command& argv, const RedisEngine::CommandSpec* spec,
                         std::string& refusal);
  Command call_argv;  // redis.call's arguments, a buffer kept from call to call
  // A redis.call answered from a record instead of the engine: a call a native run made before
  // it handed its script to Lua, or a call of a run being caught up.
  bool answering_from_records() const {
    return answering_ != nullptr && answered_ < answering_->size();
  }
  Reply take_recorded(std::string& refusal);
  std::string last_raised_error;  // text raised by redis.call, recognised by the error handler
  int replication_flags = 3;      // redis.set_repl: 1 AOF, 2 replicas, 3 both, 0 none
  // The running script's budget (EngineOptions::script_instructions_max): VM instructions counted
  // by a count hook, pattern-matching steps by the matcher. Once spent, `killing` makes the
  // hook raise Redis's SCRIPT KILL error at every new line, as 7.0's does.
  uint64_t instructions_used = 0;
  bool killing = false;
  bool wrote = false;                 // the running script called a write command
  std::size_t memory_bytes = 0;       // held by the Lua state (its allocator counts)
  LuaHeap* heap = nullptr;            // where the Lua state's blocks live
  std::size_t memory_slack = 0;       // allowed past the budget while a reply is read
  std::size_t argument_bytes = 0;     // passed to redis.call/pcall by the running script
  uint64_t random_state = 0;          // Redis's redisLrand48 state, shared by all scripts
  bool spend(uint64_t instructions);  // false once the budget is spent
  std::size_t memory_bytes_max() const;

  // A busy script (RedisEngine::kill_script): the running script deleted an expired key (kept
  // until it goes busy, to rebuild the keyspace it started with), and a SCRIPT KILL that reached
  // the last script after `instructions`.
  void note_expired(const std::string& key, const Value& value);
  Reply kill_last(uint64_t instructions, std::vector<Propagated>& propagate);

 private:
  void open_state();
  void build_state();
  void close_state();
  // Compiles and caches a body; on failure returns false and sets `error`.
  bool create_function(const std::string& sha, const std::string& body, std::string& error);
  struct Function;
  // `sha` is the cache's key for `function`, or the rerun's copy of it.
  Reply run(RedisEngine::Call& call, const std::string& sha, int64_t key_count,
            const Function& function);
  Reply call_engine(const Command& argv, const RedisEngine::CommandSpec* spec);
  // call_engine's last step: what the call propagated (`propagate` from `from` on) becomes the
  // script's effects, as redis.set_repl says.
  void take_produced(std::vector<Propagated>& propagate, std::size_t from);

  // The lock scripts run in C++ (by SHA-1; scripting.cpp says which and why that is exact).
  enum class Native : uint8_t {
    none,
    delete_if_value,
    delete_if_value_or_report_missing,
    pexpire_if_value
  };
  struct Function {
    int ref = 0;  // registry reference of the compiled body; 0 until a deferred one compiles
    Native native = Native::none;
  };
  // What a native run did: all of it (`reply` is the script's), nothing (the script runs in
  // Lua), or part (the calls made are in prefix_, the rest runs in Lua).
  enum class NativeRun : uint8_t { done, not_run, partly };
  NativeRun run_native(const Function& function, RedisEngine::Call& call, int64_t key_count,
                       Reply& reply);
  // One redis.call made by a native run, as the Lua body makes it (recorded in prefix_); null
  // when the run must go on in Lua: the call raised, or was not made (Lua would raise first), or
  // Lua could not be shown to have room for its reply.
  const Reply* native_call(const RedisEngine::CommandSpec* spec, std::string_view name,
                           const std::string& key, const std::string* argument,
                           std::size_t& run_bytes);
  // native_call for DEL of `key`, with call_from_script's and call_engine's steps made here
  // (DEL is known, of its arity, allowed in scripts and a write) and no argv built.
  const Reply* native_del(const std::string& key, std::size_t& run_bytes);
  // A native run's first call, GET of `key`, made as call_from_script makes it (cmd_get's steps),
  // its reply read where it lies: nil, WRONGTYPE's error, or a bulk whose bytes are the key's
  // value in the keyspace (valid until the run writes; run_native points them at its argument
  // when they are the same). It is written as a Reply (reply()) only when the run goes on in Lua.
  struct NativeGet {
    ReplyType type = ReplyType::nil;
    std::string_view text;
    Reply reply() const;  // as a Reply, for a run that goes on in Lua
  };
  NativeGet native_get(const std::string& key);
  // The Call a native run makes on the engine (defined in scripting.cpp, its only user).
  [[gnu::always_inline]] inline RedisEngine::Call inner_call(const RedisEngine::CommandSpec* spec);
  bool may_run_natively(std::size_t run_bytes) const;
  static Native native_kind(std::string_view sha);
  // `first` is the run's GET reply (nil or bulk); prefix_ holds the calls made after it.
  void append_owed(const Function& function, const Command& argv, int64_t key_count,
                   std::size_t run_bytes, const NativeGet& first);
  void append_owed_compile(Function& function, const std::string& body);
  void forget_owed();
  struct RecordedCall {
    Reply reply;
    std::string refusal;
  };
  void note_busy();  // the running script just passed busy_instructions()

  // What running the last script again up to a SCRIPT KILL needs, kept once it went busy
  // without having written (a script that wrote cannot be killed).
  struct Rerun {
    Command argv;
    std::string sha;
    int64_t key_count = 0;
    int64_t now_ms = 0;
    Instant wall_now;
    bool from_master = false;
    uint64_t random_state = 0;
    std::vector<SnapshotEntry> keyspace;  // as the script found it
    uint64_t expired_keys = 0;
  };
  std::optional<Rerun> rerun_;
  uint64_t busy_at_ = UINT64_MAX;  // the running script is busy past this many instructions
  uint64_t stop_at_ = UINT64_MAX;  // and is stopped past this many (cap, or a SCRIPT KILL's)
  bool busy_ = false;              // the running script passed busy_at_
  bool replaying_ = false;         // running a killed script again (kill_last)
  uint64_t random_state_at_start_ = 0;
  int64_t key_count_ = 0;
  const std::string* sha_ = nullptr;
  std::vector<SnapshotEntry> expired_before_busy_;  // keys the running script deleted so far

  RedisEngine& engine_;
  lua_State* lua_ = nullptr;
  std::unique_ptr<LuaStateHome> home_;         // where lua_ lives
  std::map<std::string, Function> functions_;  // by SHA-1
  // The last function EVAL/EVALSHA ran (a client sends the same script again and again).
  std::map<std::string, Function>::iterator last_function_ = functions_.end();
  // Native runs not yet made in Lua, encoded (scripting.cpp: append_owed / catch_up), and an
  // upper bound of what making them would allocate in Lua.
  struct OwedBuffer {
    std::unique_ptr<char[]> bytes;  // not zeroed: every byte is written before it is read
    std::size_t size = 0;
    std::size_t capacity = 0;
    char* extend(std::size_t more);  // where `more` bytes go, at the end
  };
  OwedBuffer owed_;
  std::size_t owed_runs_ = 0;
  std::size_t owed_lua_bytes_ = 0;
  // redis.call answers taken from records: the calls a native run made before it handed the
  // script to Lua, or a run being caught up.
  std::vector<RecordedCall> prefix_;
  std::vector<RecordedCall> caught_up_calls_;
  const std::vector<RecordedCall>* answering_ = nullptr;
  std::size_t answered_ = 0;
  // Script body -> its SHA-1, so a repeated EVAL of the same body does not hash it again
  // (bounded by the script cache: cleared with it).
  std::map<std::string, std::string, std::less<>> sha_of_body_;
  std::map<std::string, std::string, std::less<>>::iterator last_body_ = sha_of_body_.end();
  bool last_function_is_last_bodys_ = false;  // last_function_ is last_body_'s digest's
  int environment_ref_ = 0;                   // the read-only globals proxy scripts run in
  int error_handler_ref_ = 0;
  RedisEngine::Call* current_ = nullptr;  // the EVAL being run
  // Where the running script's effects begin in current_->propagate (its calls propagate there).
  std::size_t effects_from_ = 0;
  // Buffers kept from call to call (their strings keep their room): a native run's redis.call
  // arguments, two or three of them (native_call).
  Command native_argv2_ = Command(2);
  Command native_argv3_ = Command(3);
};

}  // namespace redlock_sim
