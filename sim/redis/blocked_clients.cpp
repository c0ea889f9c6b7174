// The node's half of BLPOP (see node.hpp): parking a client, waking it on a push, timing it out.
// Redis 7.0 blocked.c and t_list.c are the model: clients blocked on a key are served in the
// order they blocked (serveClientsBlockedOnListKey walks the key's client list from its head),
// each gets `*2 key element` and its pop is propagated as LPOP, after the whole command or script
// that pushed (handleClientsBlockedOnKeys runs after call()).
#include "sim/redis/node.hpp"

namespace redlock_sim {

namespace {
// The model's wall clock never passes this (the `redis` CLI's epoch_ms_max): a later timeout is
// never reached, and its nanoseconds would overflow.
constexpr int64_t timeout_ms_max = 9'000'000'000'000;
}  // namespace

void RedisNode::on_message(Message& message) {
  // The checks for a busy script, a blocked connection and requests to replay are each made
  // here first: none applies to nearly every request.
  if (message.is_reply || (busy_ && take_while_busy(message))) return;
  if (!blocked_.empty()) {
    const Connection connection{message.from, message.from_incarnation};
    const auto it = blocked_.find(connection);
    if (it != blocked_.end()) {
      // One TCP connection: Redis reads nothing more from a blocked client until it is served.
      it->second.queued.push_back(std::move(message));
      return;
    }
  }
  serve_request(message);
  if (!replay_.empty()) replay_unblocked();
}

void RedisNode::serve_request(Message& message) {
  engine_.take_block_request();
  engine_.take_shutdown_request();
  serving_request_ = true;
  Reply reply = handle(message);
  serving_request_ = false;
  if (engine_.take_shutdown_request()) {
    // SHUTDOWN: the server stops without a reply and without saving (the crash path).
    simulator().crash(id());
    return;
  }
  if (busy_pending_) {
    busy_pending_ = false;
    start_busy(message, std::move(reply));
    return;
  }
  if (std::optional<BlockRequest> request = engine_.take_block_request()) {
    block(message, std::move(*request));
    return;
  }
  if (message.request_id != 0) reply_to(message, std::move(reply));
}

// Requests that waited behind a BLPOP now served, in arrival order; one may block again.
void RedisNode::replay_unblocked() {
  while (!replay_.empty()) {
    Message message = std::move(replay_.front());
    replay_.pop_front();
    const auto it = blocked_.find(Connection{message.from, message.from_incarnation});
    if (it != blocked_.end()) {
      it->second.queued.push_back(std::move(message));
      continue;
    }
    serve_request(message);
  }
}

void RedisNode::block(const Message& request, BlockRequest block_request) {
  const Connection connection{request.from, request.from_incarnation};
  Blocked blocked{.request = request,
                  .keys = std::move(block_request.keys),
                  .timeout_at_ms = block_request.timeout_at_ms};
  for (const std::string& key : blocked.keys) {
    std::deque<Connection>& waiting = blocked_on_key_[key];
    // BLPOP k k: Redis blocks the client on each key once.
    bool present = false;
    for (const Connection& c : waiting)
      present = present || c == connection;
    if (!present) waiting.push_back(connection);
  }
  if (blocked.timeout_at_ms > 0 && blocked.timeout_at_ms < timeout_ms_max) {
    const uint64_t tag = next_block_tag_++;
    // Redis unblocks when `timeout < now` in whole milliseconds.
    blocked.timer = start_timer(ClockKind::wall, Instant::from_ms(blocked.timeout_at_ms + 1), tag);
    blocked.timer_tag = tag;
    block_timers_[tag] = connection;
  }
  blocked_[connection] = std::move(blocked);
}

bool RedisNode::connection_alive(const Connection& connection) {
  const Process& process = simulator().process(connection.first);
  return process.status() != ProcessStatus::crashed && process.incarnation() == connection.second;
}

void RedisNode::unblock(const Connection& connection, std::optional<Reply> reply) {
  const auto it = blocked_.find(connection);
  if (it == blocked_.end()) return;
  Blocked blocked = std::move(it->second);
  blocked_.erase(it);
  for (const std::string& key : blocked.keys) {
    const auto waiting = blocked_on_key_.find(key);
    if (waiting == blocked_on_key_.end()) continue;
    std::erase(waiting->second, connection);
    if (waiting->second.empty()) blocked_on_key_.erase(waiting);
  }
  if (blocked.timer_tag != 0) {
    cancel_timer(blocked.timer);
    block_timers_.erase(blocked.timer_tag);
  }
  if (reply && blocked.request.request_id != 0) reply_to(blocked.request, std::move(*reply));
  for (Message& message : blocked.queued)
    replay_.push_back(std::move(message));
}

void RedisNode::serve_ready_keys() {
  std::vector<std::string> keys = engine_.take_ready_keys();
  if (keys.empty()) return;  // nearly always (this runs after every command): no clock read
  const ExecutionContext context{.wall_now = wall_now(), .from_master = false};
  for (; !keys.empty(); keys = engine_.take_ready_keys()) {
    for (const std::string& key : keys) {
      for (;;) {
        const auto waiting = blocked_on_key_.find(key);
        if (waiting == blocked_on_key_.end()) break;
        const Connection connection = waiting->second.front();
        if (!connection_alive(connection)) {
          unblock(connection, std::nullopt);  // its connection closed when it crashed
          continue;
        }
        Reply element = engine_.execute(make_command("LPOP", key), context, effects_);
        if (element.type != ReplyType::bulk) break;  // gone, emptied, expired or not a list
        unblock(connection, Reply::array({Reply::bulk(key), std::move(element)}));
      }
    }
  }
}

void RedisNode::on_block_timer(uint64_t tag) {
  const auto found = block_timers_.find(tag);
  if (found == block_timers_.end()) return;
  const Connection connection = found->second;
  Blocked& blocked = blocked_.at(connection);
  if (!blocked.timeout_due) {
    // Due; answered when the event loop next wakes: the next serverCron tick.
    blocked.timeout_due = true;
    const int64_t hz = engine_.config().hz < 1 ? 1 : engine_.config().hz;
    const int64_t tick_ns = Duration::from_ms(1000 / hz).ns();
    const int64_t now_ns = monotonic_now().ns();
    const int64_t next_ns = (now_ns + tick_ns - 1) / tick_ns * tick_ns;
    if (next_ns > now_ns) {
      blocked.timer = start_timer(ClockKind::monotonic, Instant::from_ns(next_ns), tag);
      return;
    }
  }
  blocked.timer_tag = 0;  // fired: nothing to cancel
  block_timers_.erase(found);
  unblock(connection, Reply::nil_array_reply());
  replay_unblocked();
}

}  // namespace redlock_sim
