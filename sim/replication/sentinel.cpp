#include "sim/replication/sentinel.hpp"

#include <algorithm>

#include "sim/redis/text.hpp"

namespace redlock_sim {

using redis_text::equals_ignore_case;
using redis_text::parse_int64;

namespace {
constexpr Duration tick_period = Duration::from_ms(1000);
constexpr Duration pending_max = Duration::from_ms(5000);
constexpr Duration desync_step = Duration::from_ms(100);

}  // namespace

SentinelProcess::SentinelProcess(Simulator& simulator, ProcessId id, std::string name,
                                 SentinelOptions options)
    : Process(simulator, id, std::move(name)), world_(simulator), options_(std::move(options)) {
  master_ = options_.master;
}

void SentinelProcess::tell(ClusterEventKind kind, std::string detail) {
  if (observer_) observer_(id(), ClusterEvent{.kind = kind, .detail = std::move(detail)});
}

std::size_t SentinelProcess::position() const {
  const auto it = std::find(options_.sentinels.begin(), options_.sentinels.end(), id());
  return static_cast<std::size_t>(it - options_.sentinels.begin());
}

std::optional<ProcessId> SentinelProcess::node_named(const std::string& name) const {
  for (ProcessId node : options_.nodes) {
    if (name_of(node) == name) return node;
  }
  return std::nullopt;
}

uint64_t SentinelProcess::request(ProcessId to, Command command, RequestKind kind) {
  const uint64_t request_id = ++next_request_;
  pending_[request_id] = Pending{.to = to, .kind = kind, .sent = monotonic_now()};
  send_message(to, std::move(command), request_id);
  return request_id;
}

void SentinelProcess::start() {
  for (ProcessId node : options_.nodes)
    views_[node].last_valid_reply = monotonic_now();
  arm_sdown_timer();
  tick();
}

void SentinelProcess::arm_tick() {
  if (tick_armed_) return;
  tick_armed_ = true;
  start_timer_after(tick_period, tick_tag);
}

void SentinelProcess::tick() {
  tick_armed_ = false;
  const Instant now = monotonic_now();
  for (auto it = pending_.begin(); it != pending_.end();) {
    it = now - it->second.sent > pending_max ? pending_.erase(it) : std::next(it);
  }
  for (ProcessId node : options_.nodes) {
    send_ping(node);
    request(node, make_command("INFO", "replication"), RequestKind::info);
  }
  const std::string epoch = std::to_string(config_epoch_);
  for (ProcessId peer : options_.sentinels) {
    if (peer == id()) continue;
    send_message(peer,
                 make_command("SENTINEL-HELLO", options_.master_name, epoch, name_of(master_)), 0);
    if (sdown_) {
      request(peer,
              make_command("SENTINEL", "is-master-down-by-addr", options_.master_name,
                           std::to_string(current_epoch_), "*"),
              RequestKind::is_down);
    }
  }
  if (electing_ && now - election_started_ > Duration::from_ms(options_.failover_timeout_ms)) {
    electing_ = false;
    failover_blocked_until_ = now + Duration::from_ms(options_.failover_timeout_ms);
    tell(ClusterEventKind::failover_abort_not_elected, "epoch " + std::to_string(election_epoch_));
  }
  convert_contradicting_nodes();
  arm_tick();
}

void SentinelProcess::send_ping(ProcessId node) {
  // Redis's sentinelSendPing: the first unanswered PING's time is kept until a valid reply.
  NodeView& view = views_[node];
  if (!view.ping_pending_since) view.ping_pending_since = monotonic_now();
  request(node, make_command("PING"), RequestKind::ping);
  if (node == master_) arm_sdown_timer();
}

void SentinelProcess::on_link_closed(ProcessId node) {
  // A killed or shut down node closes the connection; Sentinel reconnects at its next timer
  // tick and sends a PING at once (sentinelReconnectInstance), which goes unanswered: SDOWN
  // follows down_after_ms after that, not after the PING of the next second.
  if (std::find(options_.nodes.begin(), options_.nodes.end(), node) == options_.nodes.end()) return;
  send_ping(node);
}

void SentinelProcess::arm_sdown_timer() {
  if (sdown_timer_ != 0) cancel_timer(sdown_timer_);
  sdown_timer_ = 0;
  // SDOWN once more than down_after_ms have passed since the oldest unanswered PING was sent
  // (sentinelCheckSubjectivelyDown's act_ping_time).
  const std::optional<Instant> since = views_[master_].ping_pending_since;
  if (!since) return;
  const Instant deadline =
      *since + Duration::from_ms(options_.down_after_ms) + Duration::from_ms(1);
  sdown_timer_ = start_timer(ClockKind::monotonic, deadline, sdown_tag);
}

void SentinelProcess::check_sdown() {
  sdown_timer_ = 0;
  const Instant now = monotonic_now();
  const std::optional<Instant> since = views_[master_].ping_pending_since;
  if (sdown_ || !since || now - *since <= Duration::from_ms(options_.down_after_ms)) return;
  sdown_ = true;
  sdown_since_ = now;
  tell(ClusterEventKind::sdown, "master " + name_of(master_) + " (no valid reply for " +
                                    std::to_string(options_.down_after_ms) + " ms)");
  for (ProcessId peer : options_.sentinels) {
    if (peer == id()) continue;
    request(peer,
            make_command("SENTINEL", "is-master-down-by-addr", options_.master_name,
                         std::to_string(current_epoch_), "*"),
            RequestKind::is_down);
  }
  check_odown();
}

void SentinelProcess::check_odown() {
  if (!sdown_) return;
  const Instant now = monotonic_now();
  std::size_t agree = 1;
  for (const auto& [peer, at] : peers_saying_down_) {
    if (now - at <= pending_max) ++agree;
  }
  if (!odown_ && agree >= options_.quorum) {
    odown_ = true;
    tell(ClusterEventKind::odown, "master " + name_of(master_) + " (" + std::to_string(agree) +
                                      "/" + std::to_string(options_.quorum) + " sentinels agree)");
  }
  if (odown_) try_failover();
}

void SentinelProcess::try_failover() {
  const Instant now = monotonic_now();
  if (electing_ || leading_ || failover_start_armed_ || now < failover_blocked_until_) return;
  // Real Sentinel waits a random time under 1 s so that sentinels do not all ask at once; a
  // delay by position in the sentinel list does the same deterministically.
  failover_start_armed_ = true;
  start_timer(ClockKind::monotonic, now + desync_step * static_cast<int64_t>(position()),
              failover_start_tag);
}

}  // namespace redlock_sim
