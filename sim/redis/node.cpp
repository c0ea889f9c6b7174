#include "sim/redis/node.hpp"

namespace redlock_sim {

namespace {
constexpr uint64_t expire_timer_tag = 1;
}

RedisNode::RedisNode(Simulator& simulator, ProcessId id, std::string name, EngineOptions options)
    : ServerProcess(simulator, id, std::move(name)),
      engine_(std::move(options)),
      expire_rng_(simulator.rng("redis/" + this->name() + "/active-expire")) {}

// Flattened: flush_effects and its inline steps are made in place (this runs for every command).
[[gnu::flatten]] Reply RedisNode::execute(const Command& command, bool from_master) {
  const ExecutionContext context{.wall_now = wall_now(), .from_master = from_master};
  Reply reply = engine_.execute(command, context, effects_);
  if (serving_request_ && engine_.last_script_run().busy) {
    // A busy script's writes reach the AOF and replicas when it ends (busy_script.cpp).
    busy_effects_ = std::move(effects_);
    effects_.clear();
    busy_pending_ = true;
    return reply;
  }
  flush_effects();
  return reply;
}

// ClusterNode::handle_command makes this step itself (one call less a request): a step added
// here must be added there too.
Reply RedisNode::handle(const Message& request) {
  return execute(request.command());
}

void RedisNode::on_timer(uint64_t tag) {
  if (take_timer_while_busy(tag)) return;
  if (tag != expire_timer_tag) {
    on_block_timer(tag);
    return;
  }
  timer_armed_ = false;
  engine_.active_expire_cycle(ExecutionContext{.wall_now = wall_now()}, expire_rng_, effects_);
  flush_effects();
}

void RedisNode::on_crash() {
  // Without persistence a crashed server comes back empty, scripts included.
  engine_.restore({}, wall_now(), false);
  engine_.flush_scripts();
  effects_.clear();
  // Connections break: every blocked client is gone (its timer with the kernel's).
  blocked_.clear();
  blocked_on_key_.clear();
  block_timers_.clear();
  replay_.clear();
  engine_.take_ready_keys();
  engine_.take_block_request();
  busy_.reset();  // the script dies with the process, its caller's connection too
  busy_effects_.clear();
  busy_pending_ = false;
  timer_armed_ = false;  // the kernel dropped the process's timers
}

void RedisNode::on_restart() {
  if (restart_hook_) restart_hook_(*this);
  arm_expire_timer();
}

void RedisNode::start_expire_timer() {
  timer_armed_ = true;
  const int64_t hz = engine_.config().hz < 1 ? 1 : engine_.config().hz;
  start_timer_after(Duration::from_ms(1000 / hz), expire_timer_tag);
}

void RedisNode::flush_effects() {
  if (engine_.has_ready_keys()) serve_ready_keys();
  if (!effects_.empty()) {
    if (sink_) sink_(*this, effects_);
    effects_.clear();
  }
  arm_expire_timer();
}

}  // namespace redlock_sim
