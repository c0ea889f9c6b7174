// The node's half of a busy script (see node.hpp): Redis 7.0's script.c and server.c are the
// model. A script is timed from its start; after busy-reply-threshold (lua-time-limit) the
// server enters its "timed out" mode, reads what clients sent meanwhile and answers each with
// BUSY (processCommand's checks before it still come first), except SCRIPT KILL, which stops a
// script that has not written (scriptKill) and is refused with UNKILLABLE otherwise. The
// caller's connection is not read, the master's stream waits, no time event (serverCron, the
// expire cycle, timeouts) runs until the script ends.
#include "sim/redis/node.hpp"

namespace redlock_sim {

namespace {
const char* const unkillable_text =
    "UNKILLABLE Sorry the script already executed write commands against the dataset. You can "
    "either wait the script termination or kill the server in a hard way using the SHUTDOWN "
    "NOSAVE command.";
}  // namespace

void RedisNode::start_busy(const Message& request, Reply reply) {
  const ScriptRun& run = engine_.last_script_run();
  BusyScript busy{.request = request,
                  .reply = std::move(reply),
                  .effects = std::move(busy_effects_),
                  .started = monotonic_now(),
                  .instructions = run.instructions,
                  .wrote_at = run.wrote_at,
                  .capped = run.capped};
  busy_effects_.clear();
  const Duration threshold = Duration::from_ms(engine_.config().busy_reply_threshold_ms);
  busy.timer = start_timer(ClockKind::monotonic, busy.started + threshold, busy_timed_out_tag);
  busy_ = std::move(busy);
}

bool RedisNode::take_while_busy(Message& message) {
  if (!busy_ || message.is_reply) return false;
  const Connection connection{message.from, message.from_incarnation};
  // A client parked in BLPOP is not read either: its request stays behind the BLPOP.
  if (blocked_.count(connection) != 0) return false;
  const Connection caller{busy_->request.from, busy_->request.from_incarnation};
  if (message.request_id == 0 || connection == caller || !busy_->timed_out) {
    busy_->held.push_back(std::move(message));
    return true;
  }
  answer_while_busy(message);
  return true;
}

bool RedisNode::take_timer_while_busy_slow(uint64_t tag) {
  if (tag == busy_timed_out_tag || tag == busy_end_tag) {
    on_busy_timer(tag);
    return true;
  }
  if (!busy_) return false;
  busy_->held_timers.push_back(tag);
  return true;
}

void RedisNode::on_busy_timer(uint64_t tag) {
  if (!busy_) return;
  if (tag == busy_end_tag) {
    if (busy_->capped) {
      // Nobody killed it by the hard cap: the simulator cannot run it for ever.
      simulator().stop(RunStop::script_limit);
      return;
    }
    end_busy(std::nullopt);
    return;
  }
  busy_->timed_out = true;
  const uint64_t end_instructions =
      busy_->capped ? engine_.options().script_instructions_max : busy_->instructions;
  busy_->timer =
      start_timer(ClockKind::monotonic, busy_->started + engine_.script_duration(end_instructions),
                  busy_end_tag);
  // What others sent meanwhile is read now, in arrival order; a SCRIPT KILL among it ends the
  // script, and what follows it is served as usual (end_busy replays it).
  std::deque<Message> held = std::move(busy_->held);
  busy_->held.clear();
  const Connection caller{busy_->request.from, busy_->request.from_incarnation};
  while (!held.empty() && status() != ProcessStatus::crashed) {
    Message message = std::move(held.front());
    held.pop_front();
    const Connection connection{message.from, message.from_incarnation};
    if (!busy_) {
      on_message(message);
    } else if (message.request_id == 0 || connection == caller) {
      busy_->held.push_back(std::move(message));
    } else {
      answer_while_busy(message);
    }
  }
}

void RedisNode::answer_while_busy(Message& message) {
  if (RedisEngine::is_shutdown(message.command()) &&
      !RedisEngine::shutdown_refusal(message.command(), true)) {
    // SHUTDOWN NOSAVE ends the script with the process; nobody gets a reply.
    simulator().crash(id());
    return;
  }
  if (!RedisEngine::is_script_kill(message.command())) {
    if (message.request_id != 0) reply_to(message, engine_.busy_reply(message.command()));
    return;
  }
  // The instructions the script had spent by now, at the node's monotonic clock.
  const int64_t elapsed_ns = (monotonic_now() - busy_->started).ns();
  const auto spent =
      static_cast<uint64_t>(static_cast<unsigned __int128>(elapsed_ns < 0 ? 0 : elapsed_ns) *
                            engine_.options().script_instructions_per_ms / 1'000'000);
  if (busy_->wrote_at <= spent) {
    if (message.request_id != 0) reply_to(message, Reply::error(unkillable_text));
    return;
  }
  Reply killed = engine_.kill_script(spent, effects_);
  if (message.request_id != 0) reply_to(message, Reply::ok());
  end_busy(std::move(killed));
}

void RedisNode::end_busy(std::optional<Reply> killed_reply) {
  BusyScript busy = std::move(*busy_);
  busy_.reset();
  if (killed_reply) {
    cancel_timer(busy.timer);  // its end, which will not come
  } else {
    for (Propagated& effect : busy.effects)
      effects_.push_back(std::move(effect));
  }
  if (busy.request.request_id != 0) {
    reply_to(busy.request, killed_reply ? std::move(*killed_reply) : std::move(busy.reply));
  }
  flush_effects();
  // What waited for the script, in arrival order, then the timers that fell due meanwhile (a
  // request may start another busy script: what follows then waits for that one).
  // (A SHUTDOWN among them stops the process: nothing after it is served.)
  for (Message& message : busy.held) {
    if (status() == ProcessStatus::crashed) return;
    on_message(message);
  }
  for (const uint64_t tag : busy.held_timers) {
    if (status() == ProcessStatus::crashed) return;
    on_timer(tag);
  }
}

}  // namespace redlock_sim
