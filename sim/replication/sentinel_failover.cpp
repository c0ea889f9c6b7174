// SentinelProcess: messages, the election, the promotion and the reconfiguration of nodes.
#include <algorithm>
#include <tuple>

#include "sim/redis/text.hpp"
#include "sim/replication/sentinel.hpp"

namespace redlock_sim {

using redis_text::equals_ignore_case;
using redis_text::parse_int64;

namespace {
constexpr Duration unreachable_after = Duration::from_ms(5000);  // ping period * 5
constexpr Duration info_validity = Duration::from_ms(3000);      // info period * 3
constexpr Duration contradiction_grace = Duration::from_ms(4000);

std::optional<std::string> info_field(const std::string& text, const std::string& field) {
  const std::string needle = field + ":";
  std::size_t at = 0;
  while ((at = text.find(needle, at)) != std::string::npos) {
    if (at == 0 || text[at - 1] == '\n') {
      const std::size_t start = at + needle.size();
      const std::size_t end = text.find("\r\n", start);
      return text.substr(start, end == std::string::npos ? std::string::npos : end - start);
    }
    at += needle.size();
  }
  return std::nullopt;
}

int64_t int_field(const std::string& text, const std::string& field, int64_t fallback) {
  const auto value = info_field(text, field);
  int64_t number = 0;
  return value && parse_int64(*value, number) ? number : fallback;
}
}  // namespace

void SentinelProcess::on_timer(uint64_t tag) {
  if (tag == tick_tag) {
    tick();
  } else if (tag == sdown_tag) {
    check_sdown();
  } else if (tag == failover_start_tag) {
    failover_start_armed_ = false;
    start_election();
  } else if (tag == promote_tag) {
    promote();
  }
}

void SentinelProcess::on_crash() {
  // The configuration (master, epochs, vote) is in sentinel.conf; the rest is volatile.
  pending_.clear();
  sdown_ = false;
  odown_ = false;
  peers_saying_down_.clear();
  electing_ = false;
  leading_ = false;
  failover_start_armed_ = false;
  tick_armed_ = false;
  sdown_timer_ = 0;
}

void SentinelProcess::on_restart() {
  start();
}

void SentinelProcess::start_election() {
  const Instant now = monotonic_now();
  if (!odown_ || electing_ || leading_ || now < failover_blocked_until_) return;
  ++current_epoch_;
  election_epoch_ = current_epoch_;
  voted_leader_ = name();
  voted_epoch_ = current_epoch_;
  electing_ = true;
  election_started_ = now;
  votes_ = {id()};
  tell(ClusterEventKind::try_failover,
       "epoch " + std::to_string(election_epoch_) + ": asking for votes");
  for (ProcessId peer : options_.sentinels) {
    if (peer == id()) continue;
    request(peer,
            make_command("SENTINEL", "is-master-down-by-addr", options_.master_name,
                         std::to_string(election_epoch_), name()),
            RequestKind::vote);
  }
  check_elected();
}

void SentinelProcess::check_elected() {
  const std::size_t majority = options_.sentinels.size() / 2 + 1;
  const std::size_t needed = std::max<std::size_t>(options_.quorum, majority);
  if (!electing_ || votes_.size() < needed) return;
  electing_ = false;
  leading_ = true;
  tell(ClusterEventKind::elected_leader, "epoch " + std::to_string(election_epoch_) + " with " +
                                             std::to_string(votes_.size()) + " votes");
  // The catalogue's convention: the promotion lands failover_delay_ms after SDOWN.
  const Instant at = sdown_since_ + Duration::from_ms(options_.failover_delay_ms);
  start_timer(ClockKind::monotonic, std::max(at, monotonic_now()), promote_tag);
}

void SentinelProcess::on_message(Message& message) {
  if (message.command().empty() && !message.is_reply) return;
  if (message.is_reply) {
    const auto it = pending_.find(message.request_id);
    if (it == pending_.end() || it->second.to != message.from) return;
    const Pending pending = it->second;
    pending_.erase(it);
    switch (pending.kind) {
      case RequestKind::ping:
        on_ping_reply(message.from, message.reply);
        break;
      case RequestKind::info:
        on_info_reply(message.from, message.reply);
        break;
      case RequestKind::is_down:
      case RequestKind::vote:
        on_is_down_reply(message.from, message.reply);
        break;
      case RequestKind::command:
        break;
    }
    return;
  }
  if (message.request_id == 0) {
    if (message.command().front() == "SENTINEL-HELLO") on_hello(message.command());
    if (message.command().front() == "REPLLINKCLOSED") on_link_closed(message.from);
    return;
  }
  on_request(message);
}

void SentinelProcess::on_ping_reply(ProcessId from, const Reply& reply) {
  const bool valid = (reply.type == ReplyType::status && reply.text == "PONG") ||
                     (reply.is_error() && (reply.text.rfind("LOADING", 0) == 0 ||
                                           reply.text.rfind("MASTERDOWN", 0) == 0));
  if (!valid) return;
  views_[from].last_valid_reply = monotonic_now();
  views_[from].ping_pending_since.reset();
  if (from != master_) return;
  if (sdown_) {
    sdown_ = false;
    odown_ = false;
    peers_saying_down_.clear();
    electing_ = false;  // an election not yet won is abandoned; a won one goes on
    tell(ClusterEventKind::sdown_cleared, "master " + name_of(master_) + " answers again");
  }
  arm_sdown_timer();
}

void SentinelProcess::on_info_reply(ProcessId from, const Reply& reply) {
  if (reply.type != ReplyType::bulk) return;
  const std::string& text = reply.text;
  NodeView& view = views_[from];
  view.has_info = true;
  view.info_time = monotonic_now();
  view.reports_master = info_field(text, "role") == std::optional<std::string>("master");
  view.master_host = info_field(text, "master_host").value_or("");
  view.link_down_ms = int_field(text, "master_link_down_since_seconds", 0) * 1000;
  view.offset = int_field(text, "slave_repl_offset", 0);
  view.priority = int_field(text, "slave_priority", 100);
}

void SentinelProcess::on_is_down_reply(ProcessId from, const Reply& reply) {
  if (reply.type != ReplyType::array || reply.elements.size() != 3) return;
  if (reply.elements[0].is_integer(1)) {
    peers_saying_down_[from] = monotonic_now();
  } else {
    peers_saying_down_.erase(from);
  }
  const bool vote_for_us = reply.elements[1].text == name() &&
                           reply.elements[2].integer == static_cast<int64_t>(election_epoch_);
  if (electing_ && vote_for_us) {
    votes_.insert(from);
    check_elected();
  }
  check_odown();
}

void SentinelProcess::on_request(const Message& message) {
  const Command& argv = message.command();
  Reply reply = Reply::error("ERR unknown command");
  if (equals_ignore_case(argv[0], "ping")) {
    reply = Reply::status("PONG");
  } else if (equals_ignore_case(argv[0], "sentinel") && argv.size() == 5 &&
             equals_ignore_case(argv[1], "is-master-down-by-addr")) {
    reply = vote(argv);
  } else if (equals_ignore_case(argv[0], "sentinel") && argv.size() == 3 &&
             equals_ignore_case(argv[1], "get-master-addr-by-name")) {
    reply = argv[2] == options_.master_name
                ? Reply::array({Reply::bulk(name_of(master_)), Reply::bulk("6379")})
                : Reply::nil_array_reply();
  }
  reply_to(message, std::move(reply));
}

Reply SentinelProcess::vote(const Command& argv) {
  int64_t epoch = 0;
  if (!parse_int64(argv[3], epoch) || epoch < 0) return Reply::error("ERR invalid epoch");
  const bool down = sdown_ && argv[2] == options_.master_name;
  std::string leader = "*";
  int64_t leader_epoch = 0;
  const std::string& candidate = argv[4];
  if (candidate != "*") {
    const auto requested = static_cast<uint64_t>(epoch);
    current_epoch_ = std::max(current_epoch_, requested);
    if (voted_epoch_ < requested) {  // one vote per epoch, for the first to ask
      voted_epoch_ = requested;
      voted_leader_ = candidate;
      tell(ClusterEventKind::vote_for_leader, candidate + " in epoch " + std::to_string(requested));
      // Having voted for another, do not start a competing failover for a while.
      if (candidate != name()) {
        failover_blocked_until_ =
            monotonic_now() + Duration::from_ms(2 * options_.failover_timeout_ms);
      }
    }
    leader = voted_leader_;
    leader_epoch = static_cast<int64_t>(voted_epoch_);
  }
  return Reply::array({Reply::integer_reply(down ? 1 : 0), Reply::bulk(leader),
                       Reply::integer_reply(leader_epoch)});
}

void SentinelProcess::on_hello(const Command& argv) {
  if (argv.size() != 4 || argv[1] != options_.master_name) return;
  int64_t epoch = 0;
  if (!parse_int64(argv[2], epoch) || static_cast<uint64_t>(epoch) <= config_epoch_) return;
  const std::optional<ProcessId> node = node_named(argv[3]);
  if (!node) return;
  config_epoch_ = static_cast<uint64_t>(epoch);
  current_epoch_ = std::max(current_epoch_, config_epoch_);
  if (*node != master_) switch_master(*node, "configuration of epoch " + argv[2] + " learnt");
}

std::optional<ProcessId> SentinelProcess::select_replica() const {
  const Instant now = monotonic_now();
  const int64_t since_sdown_ms = sdown_ ? (now - sdown_since_).ms_floor() : 0;
  const int64_t link_down_max_ms = since_sdown_ms + options_.down_after_ms * 10;
  std::vector<std::tuple<int64_t, int64_t, std::string, ProcessId>> ranked;
  for (const auto& [node, view] : views_) {
    if (node == master_ || !view.has_info || view.reports_master) continue;
    if (now - view.last_valid_reply > unreachable_after) continue;
    if (now - view.info_time > info_validity) continue;
    if (view.priority == 0 || view.link_down_ms > link_down_max_ms) continue;
    // Lower priority first, then the larger offset, then the smaller run id (the name here).
    ranked.emplace_back(view.priority, -view.offset, name_of(node), node);
  }
  if (ranked.empty()) return std::nullopt;
  std::sort(ranked.begin(), ranked.end());
  return std::get<3>(ranked.front());
}

void SentinelProcess::promote() {
  if (!leading_) return;  // a newer configuration arrived meanwhile
  leading_ = false;
  const std::optional<ProcessId> chosen = select_replica();
  if (!chosen) {
    failover_blocked_until_ = monotonic_now() + Duration::from_ms(options_.failover_timeout_ms);
    tell(ClusterEventKind::failover_abort_no_good_slave,
         "no replica of " + name_of(master_) + " is eligible");
    return;
  }
  tell(ClusterEventKind::selected_slave, name_of(*chosen));
  request(*chosen, make_command("REPLICAOF", "NO", "ONE"), RequestKind::command);
  for (ProcessId node : options_.nodes) {
    if (node == *chosen) continue;
    request(node, make_command("REPLICAOF", name_of(*chosen), "6379"), RequestKind::command);
  }
  config_epoch_ = election_epoch_;
  switch_master(*chosen, "failover of epoch " + std::to_string(election_epoch_));
  for (ProcessId peer : options_.sentinels) {
    if (peer == id()) continue;
    send_message(peer,
                 make_command("SENTINEL-HELLO", options_.master_name, std::to_string(config_epoch_),
                              name_of(master_)),
                 0);
  }
}

void SentinelProcess::switch_master(ProcessId master, const std::string& why) {
  const ProcessId old = master_;
  master_ = master;
  sdown_ = false;
  odown_ = false;
  electing_ = false;
  leading_ = false;
  peers_saying_down_.clear();
  for (auto& [node, view] : views_)
    view.contradiction_since.reset();
  views_[master_].last_valid_reply = monotonic_now();
  views_[master_].ping_pending_since.reset();
  arm_sdown_timer();
  tell(ClusterEventKind::switch_master,
       options_.master_name + " " + name_of(old) + " -> " + name_of(master) + " (" + why + ")");
  if (options_.subscribers == nullptr) return;
  for (ProcessId client : *options_.subscribers)
    send_message(client, make_command("+switch-master", options_.master_name, name_of(master)), 0);
}

void SentinelProcess::convert_contradicting_nodes() {
  if (sdown_ || electing_ || leading_) return;  // only while the master looks healthy
  const Instant now = monotonic_now();
  for (ProcessId node : options_.nodes) {
    if (node == master_) continue;
    NodeView& view = views_[node];
    const bool fresh = view.has_info && now - view.info_time <= info_validity;
    const bool contradicts = view.reports_master || view.master_host != name_of(master_);
    if (!fresh || !contradicts) {
      view.contradiction_since.reset();
      continue;
    }
    if (!view.contradiction_since) {
      view.contradiction_since = now;
      continue;
    }
    if (now - *view.contradiction_since < contradiction_grace) continue;
    tell(ClusterEventKind::convert_to_slave, name_of(node) + " -> replica of " + name_of(master_));
    request(node, make_command("REPLICAOF", name_of(master_), "6379"), RequestKind::command);
    view.contradiction_since = now;
  }
}

}  // namespace redlock_sim
