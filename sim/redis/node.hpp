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
  // replica calls it: from then on it expires keys with its own clock, F5).
  void arm_expire_timer();

 private:
  void flush_effects();

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

  RedisEngine engine_;
  Rng expire_rng_;
  PropagationSink sink_;
  RestartHook restart_hook_;
  std::vector<Propagated> effects_;
  bool timer_armed_ = false;
};

}  // namespace redlock_sim
