// A Redis 7.0 command engine: one keyspace (db 0), the Lua script cache and the modelled config.
//
// It executes one command at a time against the node's wall clock, frozen for the whole command
// (or script), and returns the reply redis-server 7.0.15 would send, byte for byte (the
// differential tests are the judge). It does no I/O and keeps no clock of its own: the caller
// (RedisNode, the `redis` CLI, tests) passes the wall-clock reading in the ExecutionContext.
//
// Hooks for persistence and replication (built on top of this class, not in it):
// - every executed write appends what Redis 7.0 would feed to the AOF and the replication stream
//   to `propagate`, already rewritten as Redis rewrites it (SET .. PX -> SET .. PXAT absolute,
//   EXPIRE family -> PEXPIREAT, GETEX -> PEXPIREAT / PERSIST / DEL, GETDEL -> DEL, a script's
//   writes one by one wrapped in MULTI/EXEC when there are several, an expiry -> DEL);
// - with `version = "6.2"` relative TTLs go to replicas as sent and only the AOF gets absolute
//   ones, so each entry says where it goes;
// - replica mode: no expiry of its own, logically-expired keys read as missing, client writes
//   refused with READONLY, and commands from the master (context.from_master) applied verbatim;
// - snapshot()/restore() expose the keyspace with absolute expiries in key order.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "lock_impls/port/reply.hpp"
#include "lock_impls/port/time.hpp"
#include "sim/kernel/random.hpp"

namespace redlock_sim {

class ScriptRunner;

inline constexpr int64_t no_expiry_ms = -1;

enum class ValueType : uint8_t { string, hash, list };

struct Value {
  ValueType type = ValueType::string;
  std::string string;
  // Insertion order, as Redis's listpack encoding keeps small hashes (HGETALL order).
  std::vector<std::pair<std::string, std::string>> hash;
  std::vector<std::string> list;
  int64_t expire_at_ms = no_expiry_ms;  // absolute unix ms on the node's wall clock, or none
  friend bool operator==(const Value&, const Value&) = default;
};

struct ExecutionContext {
  Instant wall_now;          // the node's wall clock, frozen for the whole command or script
  bool from_master = false;  // on a replica: a command of the replication stream
};

enum class PropagationTarget : uint8_t { all, replicas, aof };

// A propagated command. The writes lock traffic makes all the time (a two-word command such as
// DEL key, and SET key value PXAT ms) are kept compact, their words in the object itself (no
// allocation, moved as plain bytes), and written out as an argv only when something reads it (a
// replica's stream, the AOF, a trace, an effects observer): an exploration reads none of them,
// and only their RESP length moves the replication offset (resp_length). Read as a Command it is
// the argv the general form would have held, byte for byte.
class PropagatedCommand {
 public:
  PropagatedCommand() = default;
  PropagatedCommand(Command argv) : argv_(std::move(argv)) {}  // NOLINT: a Command propagates
  // `name key`, as a two-word argv.
  static PropagatedCommand pair(std::string_view name, std::string_view key);
  // SET key value PXAT when_ms.
  static PropagatedCommand set_pxat(std::string_view key, std::string_view value, int64_t when_ms);
  // The same made in place, in a command just made (empty): the engine makes its commands where
  // they are kept, with no copy.
  void make_pair(std::string_view name, std::string_view key);
  void make_set_pxat(std::string_view key, std::string_view value, int64_t when_ms);

  const Command& argv() const {
    if (form_ != Form::argv) write_out();
    return argv_;
  }
  operator const Command&() const { return argv(); }  // NOLINT: read as the argv it stands for
  // The argv, moved out (this is left empty).
  Command take() &&;
  // The bytes it takes RESP-encoded (what replication offsets count), not written out.
  int64_t resp_length() const;
  static int64_t resp_length(const Command& argv);
  // Whether it is held compact (for tests: the same command either way).
  bool compact() const { return form_ != Form::argv; }
  // The compact forms read without writing them out (the run's key tracker reads every write):
  // `name key` (is_pair) and SET key value PXAT when_ms (is_set_pxat).
  bool is_pair() const { return form_ == Form::pair; }
  bool is_set_pxat() const { return form_ == Form::set_pxat; }
  std::string_view pair_name() const { return first(); }  // is_pair()
  std::string_view compact_key() const { return form_ == Form::pair ? second() : first(); }
  std::string_view set_value() const { return second(); }  // is_set_pxat()
  int64_t set_when_ms() const { return when_ms_; }         // is_set_pxat()

  // Read as a container of its words (and printed so by tests).
  using value_type = std::string;
  using const_iterator = Command::const_iterator;
  using iterator = const_iterator;
  const_iterator begin() const { return argv().begin(); }
  const_iterator end() const { return argv().end(); }
  std::size_t size() const { return argv().size(); }
  bool empty() const { return argv().empty(); }
  const std::string& operator[](std::size_t i) const { return argv()[i]; }
  const std::string& front() const { return argv().front(); }

  friend bool operator==(const PropagatedCommand& a, const PropagatedCommand& b) {
    return a.argv() == b.argv();
  }
  friend bool operator==(const PropagatedCommand& a, const Command& b) { return a.argv() == b; }

 private:
  enum class Form : uint8_t { argv, pair, set_pxat };
  // Room for the two words of a compact form (a lock's key and a 40-character token fit); longer
  // ones are held as an argv.
  static constexpr std::size_t text_max = 80;
  bool hold(std::string_view first, std::string_view second);
  std::string_view first() const {
    return {reinterpret_cast<const char*>(text_.data()), first_size_};
  }
  std::string_view second() const {
    return {reinterpret_cast<const char*>(text_.data()) + first_size_, second_size_};
  }
  void write_out() const;

  mutable Command argv_;  // the argv form, or the compact one written out
  mutable Form form_ = Form::argv;
  // pair: the name and the key; set_pxat: the key and the value; one after the other in text_.
  uint8_t first_size_ = 0;
  uint8_t second_size_ = 0;
  int64_t when_ms_ = 0;  // set_pxat
  std::array<unsigned char, text_max> text_{};
};

struct Propagated {
  PropagatedCommand command;
  PropagationTarget target = PropagationTarget::all;
  friend bool operator==(const Propagated&, const Propagated&) = default;
};

struct EngineOptions {
  std::string version = "7.0";  // "7.0" or "6.2": how TTLs travel to replicas
  bool replica = false;
  // Scripts in virtual time (docs/redis-model.md, "Script limits"): a script is charged one
  // virtual ms per script_instructions_per_ms Lua VM instructions (or pattern-matching steps).
  // Past busy_reply_threshold_ms (Redis's lua-time-limit) it is busy: the node answers others
  // BUSY until it ends or SCRIPT KILL stops it. script_instructions_max is the hard cap: the
  // engine alone stops the script there as if SCRIPT KILL had been sent; a node ends its run.
  uint64_t script_instructions_max = 100'000'000;
  uint64_t script_instructions_per_ms = 10'000;
  int64_t busy_reply_threshold_ms = 5000;
  // Bytes a Lua state may hold; an allocation past it fails ("not enough memory").
  std::size_t script_memory_bytes_max = 256u << 20;
};

// Scripts stopped at the model's limits (each is also the script's reply to its caller).
struct ScriptLimitStats {
  uint64_t killed = 0;      // read-only scripts past the instruction budget
  uint64_t unkillable = 0;  // scripts past the budget after they wrote (real Redis: UNKILLABLE)
  uint64_t out_of_memory = 0;
  uint64_t busy = 0;         // scripts that ran past busy_reply_threshold_ms
  uint64_t script_kill = 0;  // busy scripts stopped by a SCRIPT KILL (kill_script)
};

// What the script of the last command spent (reset by every execute), for the node's model of
// a busy script.
struct ScriptRun {
  static constexpr uint64_t never = UINT64_MAX;
  uint64_t instructions = 0;  // Lua VM instructions and pattern-matching steps
  uint64_t wrote_at = never;  // instructions spent when it first called a write command
  bool busy = false;          // ran past busy_reply_threshold_ms (see busy_instructions())
  bool capped = false;        // stopped at script_instructions_max
};

// The config parameters CONFIG GET/SET know about (values as Redis prints them).
struct EngineConfig {
  int64_t hz = 10;
  int64_t active_expire_effort = 1;
  int64_t min_replicas_to_write = 0;
  int64_t min_replicas_max_lag = 10;
  int64_t maxmemory = 0;
  std::string maxmemory_policy = "noeviction";
  bool lazyfree_lazy_expire = false;
  bool appendonly = false;
  std::string appendfsync = "everysec";
  std::string save;
  // busy-reply-threshold (alias lua-time-limit); starts at EngineOptions::busy_reply_threshold_ms.
  int64_t busy_reply_threshold_ms = 5000;
};

// A BLPOP that found every key empty and may block (not in a script): the node parks the client
// (sim/redis/node.cpp). timeout_at_ms is absolute on the node's wall clock; 0 blocks for ever.
struct BlockRequest {
  std::vector<std::string> keys;
  int64_t timeout_at_ms = 0;
};

struct SnapshotEntry {
  std::string key;
  Value value;
  friend bool operator==(const SnapshotEntry&, const SnapshotEntry&) = default;
};

class RedisEngine {
 public:
  explicit RedisEngine(EngineOptions options = {});
  ~RedisEngine();
  RedisEngine(const RedisEngine&) = delete;
  RedisEngine& operator=(const RedisEngine&) = delete;

  // Executes one client command (or, on a replica with from_master, one replicated command).
  Reply execute(const Command& command, const ExecutionContext& context,
                std::vector<Propagated>& propagate);
  // One cycle of active expiry (Redis's slow cycle): samples keys with a TTL in a deterministic
  // order drawn from `rng` and deletes the expired ones, emitting a DEL for each. A replica does
  // nothing: it waits for the master's DEL.
  void active_expire_cycle(const ExecutionContext& context, Rng& rng,
                           std::vector<Propagated>& propagate);

  void set_replica(bool replica) { options_.replica = replica; }
  bool replica() const { return options_.replica; }
  const EngineOptions& options() const { return options_; }
  EngineConfig& config() { return config_; }
  const EngineConfig& config() const { return config_; }

  // The keyspace in key order, with absolute expiries (expired-but-present keys included).
  std::vector<SnapshotEntry> snapshot() const;
  // Replaces the keyspace. A master skips keys expired at `wall_now` (as RDB load does); pass
  // skip_expired = false for a replica or an AOF replay.
  void restore(const std::vector<SnapshotEntry>& entries, Instant wall_now, bool skip_expired);
  // Empties the script cache (a restart loses it).
  void flush_scripts();
  // Lock-script runs made in C++ and not yet made in Lua (ScriptRunner::catch_up), for tests.
  std::size_t owed_script_runs() const;
  // Makes them in Lua now, for tests; the Lua state's memory count, as its allocator counts.
  std::size_t script_memory_after_catch_up();
  // The BLPOP just executed would block (engine_lists.cpp); taken by the caller, once.
  // Inline, as take_shutdown_request and take_ready_keys: the node asks after every command and
  // the answer is nearly always "none".
  std::optional<BlockRequest> take_block_request() {
    if (!block_request_) return std::nullopt;
    return std::exchange(block_request_, std::nullopt);
  }
  // Keys a push made ready since the last call, in the order first pushed (Redis's ready_keys).
  std::vector<std::string> take_ready_keys() {
    if (ready_keys_.empty()) return {};
    return std::exchange(ready_keys_, {});
  }
  bool has_ready_keys() const { return !ready_keys_.empty(); }

  std::size_t key_count() const { return keys_.size(); }
  std::size_t keys_with_expiry() const { return volatile_count_; }
  const Value* peek(std::string_view key) const;  // raw: ignores expiry
  uint64_t expired_keys() const { return expired_keys_; }
  const ScriptLimitStats& script_limits() const { return script_limits_; }

  // Busy scripts (docs/redis-model.md): the last command's script, the instructions after which
  // a script is busy, and the virtual time a number of instructions takes (rounded up).
  const ScriptRun& last_script_run() const { return script_run_; }
  uint64_t busy_instructions() const;
  Duration script_duration(uint64_t instructions) const;
  // SCRIPT KILL reaching the last script (busy, not yet written) when it had spent
  // `instructions`: the keyspace and the script's random state return to what they were when it
  // started and it runs again up to there, to the kill. Returns its caller's reply; its effects
  // (expired keys it deleted before the kill) go to `propagate`.
  Reply kill_script(uint64_t instructions, std::vector<Propagated>& propagate);
  // The reply to a command that arrives while a script is busy (Redis's processCommand: unknown
  // command, arity and a replica's READONLY come first, then BUSY); SCRIPT KILL is the caller's.
  Reply busy_reply(const Command& command) const;
  static bool is_script_kill(const Command& command);
  // SHUTDOWN [NOSAVE|SAVE] [NOW] [FORCE] [ABORT] as 7.0's shutdownCommand reads it: the error
  // to answer, or nullopt when the server stops (while a script is busy, only with NOSAVE).
  static std::optional<Reply> shutdown_refusal(const Command& command, bool busy);
  static bool is_shutdown(const Command& command);
  // The command just executed was a SHUTDOWN that stops the server; taken by the caller, once.
  bool take_shutdown_request() { return std::exchange(shutdown_requested_, false); }

  // Internal: one command being executed (public so the scripting module can drive it).
  struct Call;
  Reply dispatch(Call& call);
  static const char* replica_readonly_error();

 private:
  friend class ScriptRunner;
  using Keyspace = std::map<std::string, Value, std::less<>>;

  Value* lookup(Call& call, std::string_view key);
  // keys_.find, the entry found last compared first (see last_found_).
  Keyspace::iterator find_key(std::string_view key);
  // lookup's search, as an iterator: the key's entry, or end() where lookup returns null.
  Keyspace::iterator find_live(Call& call, std::string_view key);
  // lookup for a write that stores the key when it is not found: one search of the tree for
  // both. When it returns null, `place` is where set_string_at puts the key.
  Value* lookup_for_store(Call& call, std::string_view key, Keyspace::iterator& place);
  bool logically_expired(const Value& value, int64_t now_ms) const {
    return value.expire_at_ms != no_expiry_ms && now_ms > value.expire_at_ms;
  }
  void delete_expired(Call& call, Keyspace::iterator it);
  bool remove_key(std::string_view key);
  void erase_key(Keyspace::iterator it);  // remove_key for an entry already found
  // The node of the last key erased, kept (when it holds little) for the next new key: its key's
  // and value's room is reused and no node allocated. A lock key is set and deleted again and
  // again.
  void keep_spare(Keyspace::node_type node);
  Value& set_string(std::string_view key, std::string_view value, bool keep_ttl);
  // set_string at `place`, lookup_for_store's: the key's entry or where the key goes.
  Value& set_string_at(Keyspace::iterator place, std::string_view key, std::string_view value,
                       bool keep_ttl);
  // set_string for a key just looked up and found (`existing` is its value).
  Value& overwrite_string(Value& existing, std::string_view value, bool keep_ttl);
  void set_expiry(Value& value, int64_t when_ms);
  void clear_expiry(Value& value);

 public:
  // Command handlers (engine_*.cpp); public only so the command table can name them.
  Reply cmd_ping(Call& call);
  Reply cmd_echo(Call& call);
  Reply cmd_get(Call& call);
  Reply cmd_set(Call& call);
  Reply cmd_setnx(Call& call);
  Reply cmd_setex(Call& call);
  Reply cmd_psetex(Call& call);
  Reply cmd_getdel(Call& call);
  Reply cmd_getex(Call& call);
  Reply cmd_del(Call& call);
  // DEL of one key as cmd_del makes it for `name key` (a native lock script's, scripting.cpp):
  // how many it deleted, its propagation `name key`.
  int64_t delete_one(Call& call, std::string_view name, std::string_view key);
  Reply cmd_exists(Call& call);
  Reply cmd_type(Call& call);
  Reply cmd_expire(Call& call);
  Reply cmd_pexpire(Call& call);
  Reply cmd_expireat(Call& call);
  Reply cmd_pexpireat(Call& call);
  Reply cmd_ttl(Call& call);
  Reply cmd_pttl(Call& call);
  Reply cmd_expiretime(Call& call);
  Reply cmd_pexpiretime(Call& call);
  Reply cmd_persist(Call& call);
  Reply cmd_incr(Call& call);
  Reply cmd_decr(Call& call);
  Reply cmd_incrby(Call& call);
  Reply cmd_decrby(Call& call);
  Reply cmd_hset(Call& call);
  Reply cmd_hget(Call& call);
  Reply cmd_hdel(Call& call);
  Reply cmd_hexists(Call& call);
  Reply cmd_hincrby(Call& call);
  Reply cmd_hgetall(Call& call);
  Reply cmd_hlen(Call& call);
  Reply cmd_lpush(Call& call);
  Reply cmd_rpush(Call& call);
  Reply cmd_llen(Call& call);
  Reply cmd_lrange(Call& call);
  Reply cmd_lpop(Call& call);
  Reply cmd_rpop(Call& call);
  Reply cmd_blpop(Call& call);
  Reply pop_generic(Call& call, bool left);
  void signal_key_as_ready(const std::string& key);
  Reply cmd_publish(Call& call);
  Reply cmd_dbsize(Call& call);
  Reply cmd_flushall(Call& call);
  Reply cmd_time(Call& call);
  Reply cmd_wait(Call& call);
  Reply cmd_role(Call& call);
  Reply cmd_info(Call& call);
  Reply cmd_config(Call& call);
  Reply cmd_shutdown(Call& call);
  Reply cmd_eval(Call& call);
  Reply cmd_evalsha(Call& call);
  Reply cmd_script(Call& call);

  Reply set_generic(Call& call, int flags, std::string_view expire, bool seconds,
                    const Reply* ok_reply, const Reply* abort_reply);
  Reply expire_generic(Call& call, int64_t base_ms, bool seconds);
  Reply ttl_generic(Call& call, bool milliseconds, bool absolute);
  Reply incr_decr(Call& call, int64_t increment);
  Reply push_generic(Call& call, bool left);
  Reply config_get(Call& call);
  Reply config_set(Call& call);

  struct CommandSpec {
    const char* name;
    int arity;  // Redis convention: N exact, -N at least N
    uint32_t flags;
    Reply (RedisEngine::*handler)(Call&);
  };
  static const CommandSpec* find_command(std::string_view name);

 private:
  EngineOptions options_;
  // options_.version is "6.2": relative TTLs go to replicas as sent (read once, not a command).
  bool ttls_as_sent_to_replicas_ = false;
  EngineConfig config_;
  Keyspace keys_;
  // Keys with a TTL. Active expiry walks them in key order, in keys_ (a set of them beside it
  // cost a search, an insertion and an erasure in a second tree for every lock key set with a
  // TTL and deleted).
  std::size_t volatile_count_ = 0;
  // The entry found or stored last, or end(): a client's commands and a lock script's calls name
  // the same key again and again, and comparing it costs less than a descent of the tree.
  // erase_key and every clear of keys_ reset it.
  Keyspace::iterator last_found_ = keys_.end();
  Keyspace::node_type spare_key_;  // see keep_spare
  uint64_t expired_keys_ = 0;
  ScriptLimitStats script_limits_;
  ScriptRun script_run_;
  std::string replication_id_;
  std::unique_ptr<ScriptRunner> scripts_;
  std::optional<BlockRequest> block_request_;
  std::vector<std::string> ready_keys_;
  bool shutdown_requested_ = false;
};

// Flags of CommandSpec.
inline constexpr uint32_t command_write = 1;
inline constexpr uint32_t command_noscript = 2;

// One command being executed: its arguments, the frozen clock and where propagation goes.
struct RedisEngine::Call {
  const Command& argv;
  int64_t now_ms;
  Instant wall_now;
  bool from_master;
  bool in_script;
  std::vector<Propagated>& propagate;
  const CommandSpec* spec = nullptr;
};

}  // namespace redlock_sim
