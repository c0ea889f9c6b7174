// Building blocks shared by the families: tokens, retry delays, drift, Lua scripts and the
// request helpers that send them (EVALSHA with the EVAL fallback every library implements).
#pragma once

#include <algorithm>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "lock_impls/lock.hpp"
#include "lock_impls/port/port.hpp"

namespace redlock_sim {

// How a library spells its random lock value. All bytes come from the port.
enum class TokenFormat : uint8_t {
  hex,           // node-redlock: randomBytes(n).toString("hex"); redlock-cpp
  base64,        // redsync (16 B), python-redis-lock (18 B)
  alphanumeric,  // redlock-py (22 chars), redis-plus-plus (20 chars)
  uuid,          // uuid4 (pottery, aioredlock, redlock-rb) or uuid1 hex (redis-py)
};
std::string make_token(Port& port, TokenFormat format, uint32_t size);

// A retry delay of `min_ms + uniform[0, jitter_ms]` ms, drawn from the port's randomness. Every
// library's jitter is this shape (see docs/lock-clients.md for each one's numbers).
struct RetryDelay {
  int64_t min_ms = 200;
  int64_t jitter_ms = 0;
};
Duration draw_delay(Port& port, const RetryDelay& delay);
// uniform integer in [0, bound] from the port
uint64_t draw_below_or_equal(Port& port, uint64_t bound);

// Clock drift allowance: `ttl * ppm / 1e6` rounded as the library rounds it, plus a constant.
enum class DriftRounding : uint8_t {
  exact,     // Go durations, Python floats: nanosecond precision
  floor_ms,  // int(ttl*0.01) in ms: redlock-py, redlock-rb, redis-plus-plus
  round_ms,  // Math.round(ttl*0.01): node-redlock
};
struct Drift {
  int64_t ppm = 10'000;  // 1 %
  int64_t constant_ms = 2;
  DriftRounding rounding = DriftRounding::floor_ms;
};
Duration drift_for(Duration ttl, const Drift& drift);

// A Lua script the project wrote to behave like a library's own.
struct Script {
  std::string_view name;
  std::string_view text;
};
std::string script_sha1(std::string_view data);

Command eval_command(const Script& script, bool by_sha, const std::vector<std::string>& keys,
                     const std::vector<std::string>& args);
bool is_noscript(const Outcome& outcome);

// Runs `script` on `nodes` at once. With `by_sha`, EVALSHA first, then EVAL on the nodes that
// answered NOSCRIPT (a restarted node has an empty script cache).
Task<std::vector<Outcome>> run_script(Port& port, std::vector<NodeId> nodes, const Script& script,
                                      std::vector<std::string> keys, std::vector<std::string> args,
                                      Duration timeout, FanOutOptions options, bool by_sha);

// Runs one script on one node (sequential fan-outs call this in a loop).
Task<Outcome> run_script_one(Port& port, NodeId node, const Script& script,
                             std::vector<std::string> keys, std::vector<std::string> args,
                             Duration timeout, bool by_sha);

// One request as a library sends it: a plain command, or a script with its keys and arguments.
// The argv a parallel round sends is built the first time one asks for it and kept, so that a
// request sent again (every attempt with one token) is built once and shared with the messages;
// the parts do not change after construction but through add_key, which drops the kept argv, and
// retoken, which writes the new token into it when no request holds it.
class Call {
 public:
  Call() = default;  // no request: sending it is a programmer error
  Call(const Script& script, std::vector<std::string> keys, std::vector<std::string> args)
      : script_(&script), keys_(std::move(keys)), args_(std::move(args)) {}
  // A plain command; `token_at`, when not 0, is the index of its word that retoken replaces.
  explicit Call(Command plain, std::size_t token_at = 0)
      : argv_(std::make_shared<Command>(std::move(plain))), token_at_(token_at) {}

  const Script* script() const { return script_; }
  const std::vector<std::string>& keys() const { return keys_; }
  const std::vector<std::string>& args() const { return args_; }
  const Command& plain() const;  // a plain command's argv
  void add_key(std::string key);
  // The same request with another token: a script's first argument, or a plain command's word at
  // `token_at`. A kept argv no request holds any more (its only owner is this call) gets the
  // token in place (its buffers reused: the request of a lock's next acquisition is made without
  // an allocation); one a request still holds is left to it, and the call makes its own.
  void retoken(std::string_view token);
  // What a round sends: the plain command, or the script by EVALSHA (`by_sha`) or EVAL with the
  // keys and arguments.
  const std::shared_ptr<const Command>& argv(bool by_sha) const;

 private:
  const Script* script_ = nullptr;
  std::vector<std::string> keys_;
  std::vector<std::string> args_;
  // A plain command's, or the script's as last built. Every assignment (Call::argv, retoken) is a
  // make_shared<Command>, a non-const object, so that retoken may write to it while this call is
  // its only owner; an assignment of anything else would make that write undefined.
  mutable std::shared_ptr<const Command> argv_;
  mutable bool argv_by_sha_ = false;
  std::size_t token_at_ = 0;
};
Call make_call(const Script& script, std::string key, std::vector<std::string> args);
Call plain_call(Command command, std::size_t token_at = 0);
Task<Outcome> send_call(Port& port, NodeId node, const Call& call, Duration timeout, bool by_sha);

// Attempts from a retry count: retries + 1, or `cap` for -1 ("retry for ever"), never above `cap`.
inline uint32_t tries_for(int32_t retry_count, uint32_t cap) {
  return retry_count < 0 ? cap : std::min<uint32_t>(cap, static_cast<uint32_t>(retry_count) + 1);
}

enum class FanOut : uint8_t { parallel, sequential };

// What call_all gives to co_await: a round that is one broadcast (parallel, on at most
// `direct_nodes_max` nodes, with no EVAL to send after NOSCRIPT) is that broadcast itself, awaited
// by the caller with no coroutine frame of its own between; any other round is a task.
class CallAllAwaitable {
 public:
  static constexpr uint32_t direct_nodes_max = 64;
  explicit CallAllAwaitable(Port::BroadcastAwaitable broadcast)
      : broadcast_(std::move(broadcast)) {}
  explicit CallAllAwaitable(Task<std::vector<Outcome>> task) : task_(std::move(task)) {}
  bool await_ready() const noexcept { return broadcast_ && broadcast_->await_ready(); }
  std::coroutine_handle<> await_suspend(std::coroutine_handle<> waiter) {
    if (!broadcast_) return task_.await_suspend(waiter);
    broadcast_->await_suspend(waiter);
    return std::noop_coroutine();
  }
  std::vector<Outcome> await_resume() {
    return broadcast_ ? broadcast_->await_resume() : task_.await_resume();
  }

 private:
  std::optional<Port::BroadcastAwaitable> broadcast_;
  Task<std::vector<Outcome>> task_;
};

// Sends `call` to nodes 0..node_count-1: all at once (per `fan`), or one after another (then
// `abort_on_node_error` stops at the first node that did not reply or replied with an error, as
// an exception would; untried nodes read unknown). The call (and its argv) must outlive the
// co_await, as when the result is awaited at once. A parallel round's argv is taken when
// call_all is called, not when awaited: nothing may retoken the call or add a key in between.
[[nodiscard]] CallAllAwaitable call_all(Port& port, uint32_t node_count, const Call& call,
                                        FanOut fan_out, FanOutOptions fan, Duration timeout,
                                        bool by_sha, bool abort_on_node_error);

std::vector<NodeId> all_nodes(uint32_t node_count);
inline uint32_t majority(uint32_t node_count) {
  return node_count / 2 + 1;
}
// "3 ms", "-13 ms": durations in trace notes
std::string ms_text(Duration duration);
// "2/5 nodes": how many nodes did what a trace note reports
std::string nodes_text(uint32_t nodes, uint32_t node_count);

// The answer of a lock that cannot extend: the try is counted on the lease, nothing is sent.
inline ExtendResult extend_unsupported(Lease& lease) {
  ++lease.extensions;
  ExtendResult result;
  result.failure = "unsupported";
  return result;
}

}  // namespace redlock_sim
