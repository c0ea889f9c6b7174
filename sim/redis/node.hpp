// A simulated Redis 7.0 server process: each delivered command runs on its RedisEngine with the
// process's own wall clock (frozen for the command), and an active-expire cycle runs `hz` times a
// second on its monotonic clock (Redis's serverCron is driven by a monotonic timer) while some
// key has a TTL, so a world with no volatile keys goes idle.
//
// Hooks for persistence and replication: set_propagation_sink() receives, after every command
// and every expire cycle, what Redis would feed to the AOF and replicas. A crash loses the
// keyspace and the script cache (no persistence); on_restart_hook lets a persistence model
// reload data before the node serves again.
#pragma once

#include <functional>
#include <string>
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
  void on_timer(uint64_t tag) override;
  void on_crash() override;
  void on_restart() override;
  // Starts the active-expire timer if this node expires keys and some key has a TTL (a promoted
  // replica calls it: from then on it expires keys with its own clock, F5).
  void arm_expire_timer();

 private:
  void flush_effects();

  RedisEngine engine_;
  Rng expire_rng_;
  PropagationSink sink_;
  RestartHook restart_hook_;
  std::vector<Propagated> effects_;
  bool timer_armed_ = false;
};

}  // namespace redlock_sim
