// A simulated Redis 7.0 server process: each delivered command runs on its RedisEngine with the
// process's own wall clock (frozen for the command), and an active-expire cycle runs `hz` times a
// second on its monotonic clock (Redis's serverCron is driven by a monotonic timer) while some
// key has a TTL, so a world with no volatile keys goes idle.
//
// Blocking list commands (blocked_clients.cpp): a BLPOP that finds its lists empty parks its
// connection (the requesting process and incarnation) without a reply. A push that makes a key
// ready wakes the clients blocked on it in the order they blocked, one element each, after the
// command or script that pushed; a parked connection's later requests wait behind its BLPOP. A
// timeout is due when the node's wall clock passes it (Redis 7.0 compares with mstime()) and is
// answered at the next serverCron tick (1000/hz ms on the monotonic clock), as Redis checks
// timeouts only when its event loop wakes. A crash drops every parked client; a client that has
// crashed since it blocked is skipped when its turn comes (its connection closed).
//
// A script that runs past lua-time-limit (busy_script.cpp; docs/redis-model.md): the engine runs
// it whole when it arrives, and the node then lets it take its virtual time, one ms per
// EngineOptions::script_instructions_per_ms instructions, from its start. Requests that arrive
// in the first busy_reply_threshold_ms wait; from then on others get Redis's BUSY (or its
// unknown-command, arity or READONLY errors) and SCRIPT KILL stops a script that has not written
// (UNKILLABLE otherwise). The caller's own requests, replication and internal messages, and the
// node's timers wait until the script ends. A script still running at script_instructions_max
// ends the run (RunStop::script_limit).
//
// Hooks for persistence and replication: set_propagation_sink() receives, after every command
// and every expire cycle, what Redis would feed to the AOF and replicas. A crash loses the
// keyspace and the script cache (no persistence); on_restart_hook lets a persistence model
// reload data before the node serves again.
#pragma once

#include <deque>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "sim/kernel/server_process.hpp"
#include "sim/redis/engine.hpp"

namespace redlock_sim {

class RedisNode : public ServerProcess {
 public:
  using PropagationSink = std::function<void(RedisNode& node, std::vector<Propagated>& effects)>;
  using RestartHook = std::function<void(RedisNode& node)>;

  RedisNode(Simulator& simulator, ProcessId id, std::string name, EngineOptions options = {});

  RedisEngine& engine() { return engine_; }
  const RedisEngine& engine() const { return engine_; }
  void set_propagation_sink(PropagationSink sink) { sink_ = std::move(sink); }
  void set_restart_hook(RestartHook hook) { restart_hook_ = std::move(hook); }
  // Executes one command now, as if delivered (for scripted steps and tests).
  Reply execute(const Command& command, bool from_master = false);

 protected:
  Reply handle(const Message& request) override;
  void on_message(Message& message) override;
  void on_timer(uint64_t tag) override;
  void on_crash() override;
  void on_restart() override;
  // Timer tags from here up are BLPOP timeouts (subclasses pass them to RedisNode::on_timer).
  static constexpr uint64_t block_timer_tag_base = uint64_t{1} << 62;
  // Starts the active-expire timer if this node expires keys and some key has a TTL (a promoted
  // replica calls it: from then on it expires keys with its own clock, F5). Inline, as it is
  // asked after every command and the answer is nearly always "armed already" or "no TTL".
  void arm_expire_timer() {
    if (timer_armed_ || engine_.replica() || engine_.keys_with_expiry() == 0) return;
    start_expire_timer();
  }
  // While a script is busy: takes the message (answered, or kept for after the script) and
  // returns true; subclasses call it first in on_message. Likewise for timers (the busy
  // script's own, and the others, kept until it ends).
  bool take_while_busy(Message& message);
  // Inline: asked for every timer, and nearly always no script is busy and the timer is not one
  // of a busy script's.
  bool take_timer_while_busy(uint64_t tag) {
    if (!busy_ && tag != busy_timed_out_tag && tag != busy_end_tag) return false;
    return take_timer_while_busy_slow(tag);
  }
  bool busy() const { return busy_.has_value(); }

 private:
  void flush_effects();
  void start_expire_timer();

  // A connection: the requesting process and its incarnation.
  using Connection = std::pair<ProcessId, uint32_t>;
  struct Blocked {
    Message request;  // the BLPOP, to answer
    std::vector<std::string> keys;
    int64_t timeout_at_ms = 0;  // wall clock; 0: for ever
    TimerId timer = 0;
    uint64_t timer_tag = 0;      // 0: no timer running
    bool timeout_due = false;    // the wall clock passed it: answered at the next cron tick
    std::deque<Message> queued;  // later requests on the same connection
  };
  void serve_request(Message& message);
  void block(const Message& request, BlockRequest block_request);
  void serve_ready_keys();
  // Answers (unless nullopt) and forgets a parked client; its queued requests go to replay_.
  void unblock(const Connection& connection, std::optional<Reply> reply);
  void replay_unblocked();
  void on_block_timer(uint64_t tag);
  bool connection_alive(const Connection& connection);

  std::map<Connection, Blocked> blocked_;
  std::map<std::string, std::deque<Connection>, std::less<>> blocked_on_key_;
  std::map<uint64_t, Connection> block_timers_;  // timer tag -> parked connection
  uint64_t next_block_tag_ = block_timer_tag_base;
  std::deque<Message> replay_;  // requests that waited behind a BLPOP, to serve now

  struct BusyScript {
    Message request;                  // the EVAL, answered when the script ends or is killed
    Reply reply;                      // its reply if it runs to its end
    std::vector<Propagated> effects;  // its propagation, flushed at its end
    Instant started;                  // the node's monotonic clock when it started
    uint64_t instructions = 0;        // what it spends (ScriptRun)
    uint64_t wrote_at = 0;
    bool capped = false;       // still running at script_instructions_max: the run ends there
    bool timed_out = false;    // past busy_reply_threshold_ms: others get BUSY
    TimerId timer = 0;         // the next of: timed out, end
    std::deque<Message> held;  // requests and messages for after it, in arrival order
    std::vector<uint64_t> held_timers;  // timer tags that fell due meanwhile
  };
  // A busy script's timers: it times out (busy-reply-threshold), it ends.
  static constexpr uint64_t busy_timed_out_tag = uint64_t{1} << 61;
  static constexpr uint64_t busy_end_tag = busy_timed_out_tag + 1;
  bool take_timer_while_busy_slow(uint64_t tag);
  void start_busy(const Message& request, Reply reply);
  void on_busy_timer(uint64_t tag);
  void answer_while_busy(Message& message);
  void end_busy(std::optional<Reply> killed_reply);
  std::optional<BusyScript> busy_;
  bool serving_request_ = false;          // execute() keeps a busy script's effects
  bool busy_pending_ = false;             // and says so to serve_request
  std::vector<Propagated> busy_effects_;  // kept by execute() for start_busy

  RedisEngine engine_;
  Rng expire_rng_;
  PropagationSink sink_;
  RestartHook restart_hook_;
  std::vector<Propagated> effects_;
  bool timer_armed_ = false;
};

}  // namespace redlock_sim
