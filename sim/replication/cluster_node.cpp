#include "sim/replication/cluster_node.hpp"

#include <algorithm>

#include "sim/redis/sha1.hpp"
#include "sim/redis/text.hpp"
#include "sim/replication/wire.hpp"

namespace redlock_sim {

using cluster_wire::append_commands;
using cluster_wire::append_int;
using cluster_wire::append_snapshot;
using cluster_wire::Reader;
using cluster_wire::resp_length;
using redis_text::equals_ignore_case;
using redis_text::parse_int64;
using redis_text::to_lower;

namespace {
constexpr uint64_t cron_tag = 2;
constexpr uint64_t rdb_tag = 3;
constexpr uint64_t full_sync_tag = 4;
constexpr uint64_t wait_tag_base = 1'000;
constexpr const char* link_closed = "REPLLINKCLOSED";

std::string fsync_name(AppendFsync fsync) {
  switch (fsync) {
    case AppendFsync::always:
      return "always";
    case AppendFsync::everysec:
      return "everysec";
    case AppendFsync::no:
      return "no";
  }
  return "everysec";
}

bool is_transaction_marker(const Command& command) {
  return equals_ignore_case(command.front(), "multi") ||
         equals_ignore_case(command.front(), "exec");
}
}  // namespace

ClusterNode::ClusterNode(Simulator& simulator, ProcessId id, std::string name,
                         EngineOptions engine_options, ClusterNodeOptions options)
    : RedisNode(simulator, id, std::move(name), std::move(engine_options)),
      world_(simulator),
      options_(options),
      persistence_(options.persistence) {
  replid_ = new_replication_id();
  set_propagation_sink(
      [this](RedisNode&, std::vector<Propagated>& effects) { on_effects(effects); });
  // CONFIG GET shows what is modelled.
  EngineConfig& config = engine().config();
  config.appendonly = persistence_.aof_enabled();
  config.appendfsync = fsync_name(options.persistence.appendfsync);
  config.save = persistence_.rdb_enabled()
                    ? std::to_string(options.persistence.rdb_interval_ms / 1000) + " 1"
                    : "";
}

void ClusterNode::tell(ClusterEvent event) {
  if (observer_) observer_(id(), event);
}

void ClusterNode::tell(ClusterEventKind kind, std::string detail) {
  tell(ClusterEvent{.kind = kind, .detail = std::move(detail)});
}

std::string ClusterNode::new_replication_id() {
  // Real ids are random; these are derived from the node's identity so runs repeat.
  return sha1_hex(name() + "/" + std::to_string(incarnation()) + "/" +
                  std::to_string(++replid_counter_));
}

void ClusterNode::attach_in_sync(ClusterNode& master) {
  master_ = master.id();
  engine().set_replica(true);
  replid_ = master.replid_;
  offset_ = master.offset_;
  link_ = Link::up;
  down_since_known_ = true;
  last_master_io_ = monotonic_now();
  master.replicas_[id()] =
      ReplicaState{.acked_offset = offset_, .last_ack = master.monotonic_now()};
}

void ClusterNode::attach_cut_before_run(ClusterNode& master, const LinkCutBeforeRun& cut) {
  attach_in_sync(master);
  if (cut.to_master) {
    const Instant noticed = *cut.to_master + Duration::from_ms(master.options_.repl_timeout_ms);
    if (noticed <= master.monotonic_now()) {
      master.replicas_.erase(id());
      master.tell(ClusterEventKind::replication,
                  "replica " + name() + " timed out at " + std::to_string(noticed.ms_floor()) +
                      " ms (no ACK since " + std::to_string(cut.to_master->ms_floor()) +
                      " ms, before the run)");
    } else {
      master.replicas_[id()].last_ack = *cut.to_master;
    }
  }
  if (cut.from_master) {
    last_master_io_ = *cut.from_master;
    const Instant noticed = *cut.from_master + Duration::from_ms(options_.repl_timeout_ms);
    if (noticed <= monotonic_now()) {
      link_ = Link::down;
      link_down_since_ = noticed;
      tell(ClusterEventKind::replication,
           "link to the master down since " + std::to_string(noticed.ms_floor()) +
               " ms (no data from the master since " + std::to_string(cut.from_master->ms_floor()) +
               " ms, before the run)");
      send_psync();
    }
  }
}

void ClusterNode::seed(const std::vector<SnapshotEntry>& entries) {
  engine().restore(entries, Instant::zero(), false);
  if (persistence_.aof_enabled()) persistence_.rewrite_aof(entries);
  if (persistence_.rdb_enabled()) persistence_.save_rdb(entries);
}

void ClusterNode::start() {
  arm_cron();
  if (persistence_.rdb_enabled() && !rdb_armed_) {
    rdb_armed_ = true;
    start_timer_after(Duration::from_ms(persistence_.spec().rdb_interval_ms), rdb_tag);
  }
}

void ClusterNode::prepare_stop(StopKind kind) {
  const DiskState& disk = persistence_.disk();
  const std::size_t written = disk.aof.size();
  persistence_.stop(kind, engine().snapshot());
  if (persistence_.aof_enabled()) {
    tell(ClusterEventKind::persistence, std::string(stop_kind_name(kind)) + ": " +
                                            std::to_string(written) + " AOF commands written, " +
                                            std::to_string(disk.aof.size()) + " kept on disk");
  }
  if (kind == StopKind::power_loss) return;  // a dead machine sends no FIN
  for (const auto& [replica, state] : replicas_)
    send_message(replica, make_command(link_closed), 0);
  if (master_) send_message(*master_, make_command(link_closed), 0);
  for (ProcessId sentinel : monitors_)
    send_message(sentinel, make_command(link_closed), 0);
}

std::size_t ClusterNode::good_replicas() const {
  const int64_t max_lag_s = engine().config().min_replicas_max_lag;
  const int64_t now_s = Duration::floor_div(monotonic_now().ms_floor(), 1000);
  std::size_t good = 0;
  for (const auto& [replica, state] : replicas_) {
    // Redis compares whole seconds (server.unixtime - repl_ack_time); floored, since an ACK
    // before a cut that began before the run is at a negative time.
    if (now_s - Duration::floor_div(state.last_ack.ms_floor(), 1000) <= max_lag_s) ++good;
  }
  return good;
}

// ---- propagation: AOF and the replication stream ----

// Flattened: its steps made in place (after every write).
[[gnu::flatten]] void ClusterNode::on_effects(std::vector<Propagated>& effects) {
  if (effects_observer_) effects_observer_(*this, effects);
  // Without a backlog only the offset moves (add_to_backlog), with no commands gathered first.
  const bool offset_only = this->offset_only();
  if (offset_only && !persistence_.aof_enabled()) {
    // The common case (a master without replicas or AOF): the loop below with nothing to append,
    // gather or fsync.
    if (!is_master() || applying_stream_) return;
    for (const Propagated& effect : effects) {
      if (effect.target != PropagationTarget::aof) offset_ += effect.command.resp_length();
    }
    return;
  }
  std::vector<Command> to_replicas;
  for (Propagated& effect : effects) {
    // Read as an argv only where one is kept (PropagatedCommand): the offset needs its length.
    if (effect.target != PropagationTarget::replicas && persistence_.aof_enabled()) {
      persistence_.append(effect.command);
    }
    if (effect.target != PropagationTarget::aof && is_master() && !applying_stream_) {
      if (offset_only) {
        offset_ += effect.command.resp_length();  // add_to_backlog's offset-only case
      } else {
        to_replicas.push_back(std::move(effect.command).take());
      }
    }
  }
  persistence_.fsync_if_always();  // before the reply leaves
  if (!to_replicas.empty()) stream(to_replicas);
}

void ClusterNode::stream(const std::vector<Command>& commands) {
  const int64_t start = offset_;
  for (const Command& command : commands)
    add_to_backlog(command);
  if (replicas_.empty()) return;
  Command message = make_command("REPLSTREAM", replid_, std::to_string(start));
  append_commands(message, commands);
  for (const auto& [replica, state] : replicas_)
    send_message(replica, message, 0);
}

void ClusterNode::add_to_backlog(const Command& command) {
  const int64_t length = resp_length(command);
  if (offset_only()) {
    offset_ += length;
    return;
  }
  backlog_.push_back(BacklogEntry{.start = offset_, .length = length, .command = command});
  offset_ += length;
  backlog_bytes_ += length;
  while (backlog_bytes_ > options_.repl_backlog_bytes && backlog_.size() > 1) {
    backlog_bytes_ -= backlog_.front().length;
    backlog_.pop_front();
  }
}

bool ClusterNode::backlog_covers(int64_t offset) const {
  const int64_t first = backlog_.empty() ? offset_ : backlog_.front().start;
  return offset >= first && offset <= offset_;
}

// ---- the once-a-second cron (Redis's replicationCron, and the everysec fsync) ----

void ClusterNode::arm_cron() {
  if (cron_armed_) return;
  cron_armed_ = true;
  const int64_t next_ms = (monotonic_now().ms_floor() / 1000 + 1) * 1000;
  start_timer(ClockKind::monotonic, Instant::from_ms(next_ms), cron_tag);
}

void ClusterNode::cron() {
  cron_armed_ = false;
  persistence_.on_whole_second(monotonic_now().ms_floor() / 1000);
  if (is_master()) {
    master_cron();
  } else {
    replica_cron();
  }
  arm_cron();
}

void ClusterNode::master_cron() {
  const Instant now = monotonic_now();
  for (auto it = replicas_.begin(); it != replicas_.end();) {
    if (now - it->second.last_ack > Duration::from_ms(options_.repl_timeout_ms)) {
      tell(ClusterEventKind::replication,
           "replica " + name_of(it->first) + " timed out (no ACK for repl-timeout)");
      it = replicas_.erase(it);
    } else {
      ++it;
    }
  }
  // A heartbeat carrying the offset lets a replica notice data a partition dropped.
  const Command heartbeat = make_command("REPLPING", replid_, std::to_string(offset_));
  for (const auto& [replica, state] : replicas_)
    send_message(replica, heartbeat, 0);
}

void ClusterNode::replica_cron() {
  if (link_ == Link::up) {
    if (monotonic_now() - last_master_io_ <= Duration::from_ms(options_.repl_timeout_ms)) {
      send_ack();
      return;
    }
    link_down("no data from the master for repl-timeout");
  }
  send_psync();  // (re)connect once a second, as replicationCron does
}

void ClusterNode::send_ack() {
  if (master_) send_message(*master_, make_command("REPLCONF", "ACK", std::to_string(offset_)), 0);
}

void ClusterNode::send_psync() {
  if (!master_) return;
  link_ = Link::syncing;
  send_message(*master_, make_command("PSYNC", replid_, std::to_string(offset_)), 0);
}

void ClusterNode::link_down(const std::string& why) {
  if (link_ == Link::up) {
    link_down_since_ = monotonic_now();
    tell(ClusterEventKind::replication, "link to the master down: " + why);
  }
  link_ = Link::down;
}

// ---- messages ----

void ClusterNode::on_message(Message& message) {
  if (message.is_reply || message.command().empty() || (busy() && take_while_busy(message))) return;
  if (message.request_id == 0 && handle_internal(message)) return;
  if (message.command().size() == 3 && handle_wait(message)) return;  // WAIT numreplicas timeout
  RedisNode::on_message(message);  // BLPOP may park the client instead of replying
}

bool ClusterNode::handle_internal(Message& message) {
  const std::string& name = message.command().front();
  if (name == "PSYNC") {
    on_psync(message);
  } else if (name == "FULLRESYNC") {
    on_full_resync(message);
  } else if (name == "CONTINUE") {
    on_continue(message);
  } else if (name == "REPLSTREAM") {
    on_stream(message);
  } else if (name == "REPLPING") {
    if (!from_live_master(message) || link_ != Link::up) return true;
    last_master_io_ = monotonic_now();
    Reader reader(message.command(), 1);
    const auto replid = reader.read_string();
    const auto offset = reader.read_int();
    if (replid != replid_ || offset != offset_) {
      link_down("the stream has a gap (a message was lost)");
      send_psync();
    }
  } else if (name == "REPLCONF" && message.command().size() >= 2) {
    if (message.command()[1] == "ACK" && message.command().size() == 3) {
      on_ack(message, Reader(message.command(), 2).read_int().value_or(0));
    } else if (message.command()[1] == "GETACK" && master_ == message.from && link_ == Link::up) {
      send_ack();
    }
  } else if (name == link_closed) {
    if (master_ == message.from) {
      link_down("the master closed the connection");
    } else if (replicas_.erase(message.from) != 0) {
      tell(ClusterEventKind::replication, "replica " + name_of(message.from) + " disconnected");
    }
  } else {
    return false;
  }
  return true;
}

bool ClusterNode::from_live_master(const Message& message) const {
  // The catalogue's convention (S15): stream data still in flight when the master dies is lost.
  return master_ == message.from &&
         world_.process(message.from).incarnation() == message.from_incarnation;
}

void ClusterNode::on_psync(const Message& message) {
  if (!is_master()) {
    send_message(message.from, make_command(link_closed), 0);  // chained replicas: not modelled
    return;
  }
  Reader reader(message.command(), 1);
  const std::string replid = reader.read_string().value_or("");
  const int64_t offset = reader.read_int().value_or(-1);
  const bool partial = ((replid == replid_ && offset <= offset_) ||
                        (replid == replid2_ && offset <= second_offset_)) &&
                       backlog_covers(offset);
  const std::string& replica_name = name_of(message.from);
  Command reply;
  if (partial) {
    reply = make_command("CONTINUE", replid_, std::to_string(offset));
    std::vector<Command> missing;
    for (const BacklogEntry& entry : backlog_) {
      if (entry.start >= offset) missing.push_back(entry.command);
    }
    append_commands(reply, missing);
    tell(ClusterEventKind::replication,
         "partial resync of " + replica_name + " from offset " + std::to_string(offset) + " (" +
             std::to_string(missing.size()) + " commands from the backlog)");
  } else {
    // Diskless full sync (7.0's default): the transfer starts repl-diskless-sync-delay after
    // the request, with the data set as it is then; meanwhile the replica is not online (no
    // acks, not counted by WAIT or min-replicas). A replica asking again meanwhile waits on.
    replicas_.erase(message.from);
    if (full_syncs_pending_.count(message.from) != 0) return;
    if (options_.repl_diskless_sync_delay_ms == 0) {
      send_full_resync(message.from);
      return;
    }
    full_syncs_pending_[message.from] = monotonic_now();
    tell(ClusterEventKind::replication, "full resync of " + replica_name +
                                            " requested: the transfer starts in " +
                                            std::to_string(options_.repl_diskless_sync_delay_ms) +
                                            " ms (repl-diskless-sync-delay)");
    start_timer_after(Duration::from_ms(options_.repl_diskless_sync_delay_ms), full_sync_tag);
    return;
  }
  replicas_[message.from] = ReplicaState{.acked_offset = offset, .last_ack = monotonic_now()};
  send_message(message.from, std::move(reply), 0);
}

void ClusterNode::send_full_resync(ProcessId replica) {
  Command reply = make_command("FULLRESYNC", replid_, std::to_string(offset_));
  append_snapshot(reply, engine().snapshot());
  tell(ClusterEventKind::replication, "full resync of " + name_of(replica) + ": " +
                                          std::to_string(engine().key_count()) + " keys sent");
  replicas_[replica] = ReplicaState{.acked_offset = 0, .last_ack = monotonic_now()};
  send_message(replica, std::move(reply), 0);
}

void ClusterNode::start_full_syncs() {
  const Instant now = monotonic_now();
  const Duration delay = Duration::from_ms(options_.repl_diskless_sync_delay_ms);
  for (auto it = full_syncs_pending_.begin(); it != full_syncs_pending_.end();) {
    if (now - it->second < delay) {
      ++it;
      continue;
    }
    const ProcessId replica = it->first;
    it = full_syncs_pending_.erase(it);
    if (is_master()) {
      send_full_resync(replica);
    } else {
      send_message(replica, make_command(link_closed), 0);  // no longer a master: dropped
    }
  }
}

void ClusterNode::on_full_resync(const Message& message) {
  if (!from_live_master(message)) return;
  Reader reader(message.command(), 1);
  const auto replid = reader.read_string();
  const auto offset = reader.read_int();
  auto entries = reader.read_snapshot();
  if (!replid || !offset || !entries) return;
  const std::size_t before = engine().key_count();
  engine().restore(*entries, wall_now(), false);  // a replica keeps expired keys (F8)
  persistence_.rewrite_aof(*entries);
  if (persistence_.rdb_enabled()) persistence_.save_rdb(*entries);  // the received dump.rdb
  replid_ = *replid;
  offset_ = *offset;
  backlog_.clear();
  backlog_bytes_ = 0;
  link_ = Link::up;
  down_since_known_ = true;
  last_master_io_ = monotonic_now();
  ++full_resyncs_;
  tell(ClusterEventKind::full_resync, "discarded " + std::to_string(before) + " keys, loaded " +
                                          std::to_string(entries->size()) + " from " +
                                          name_of(message.from));
  send_ack();
}

void ClusterNode::on_continue(const Message& message) {
  if (!from_live_master(message)) return;
  Reader reader(message.command(), 1);
  const auto replid = reader.read_string();
  const auto start = reader.read_int();
  const auto commands = reader.read_commands();
  if (!replid || !start || !commands) return;
  if (*start != offset_) {
    link_down("partial resync does not start at our offset");
    return;
  }
  if (*replid != replid_) {
    // The master's history changed name (a failover): keep ours as the secondary id.
    replid2_ = replid_;
    second_offset_ = offset_;
    replid_ = *replid;
  }
  apply_from_master(*commands);
  link_ = Link::up;
  down_since_known_ = true;
  last_master_io_ = monotonic_now();
  ++partial_resyncs_;
  tell(ClusterEventKind::partial_resync,
       std::to_string(commands->size()) + " commands from " + name_of(message.from));
  send_ack();
}

void ClusterNode::on_stream(const Message& message) {
  if (!from_live_master(message) || link_ != Link::up) return;
  Reader reader(message.command(), 1);
  const auto replid = reader.read_string();
  const auto start = reader.read_int();
  const auto commands = reader.read_commands();
  if (!replid || !start || !commands) return;
  if (*replid != replid_ || *start != offset_) {
    link_down("the stream has a gap at offset " + std::to_string(offset_) + " (got " +
              std::to_string(*start) + ")");
    send_psync();
    return;
  }
  last_master_io_ = monotonic_now();
  apply_from_master(*commands);
}

void ClusterNode::apply_from_master(const std::vector<Command>& commands) {
  applying_stream_ = true;
  for (const Command& command : commands) {
    add_to_backlog(command);
    // A transaction arrives whole in one message and applies in one step: atomic already.
    if (is_transaction_marker(command)) continue;
    RedisNode::execute(command, /*from_master=*/true);
  }
  applying_stream_ = false;
}

void ClusterNode::on_ack(const Message& message, int64_t offset) {
  if (!is_master()) return;
  const auto it = replicas_.find(message.from);
  if (it == replicas_.end()) {
    // No such connection here (this master restarted, or timed the replica out): reset it.
    send_message(message.from, make_command(link_closed), 0);
    return;
  }
  it->second.acked_offset = std::max(it->second.acked_offset, offset);
  it->second.last_ack = monotonic_now();
  check_waiters();
}

// ---- WAIT ----

bool ClusterNode::handle_wait(Message& message) {
  const Command& argv = message.command();
  if (argv.size() != 3 || !equals_ignore_case(argv[0], "wait") || !is_master()) return false;
  int64_t wanted = 0;
  int64_t timeout_ms = 0;
  // Malformed arguments: the engine replies with Redis's error text.
  if (!parse_int64(argv[1], wanted) || !parse_int64(argv[2], timeout_ms) || timeout_ms < 0) {
    return false;
  }
  const int64_t offset =
      message.from < client_write_offsets_.size() ? client_write_offsets_[message.from] : 0;
  const int64_t acked = count_acked(offset);
  if (acked >= wanted || message.request_id == 0) {
    if (message.request_id != 0) reply_to(message, Reply::integer_reply(acked));
    return true;
  }
  const uint64_t tag = wait_tag_base + next_waiter_tag_++;
  Waiter waiter{.request = message, .replicas_wanted = wanted, .offset = offset, .timer = 0};
  // 0 waits forever, and so does a timeout past the last instant a run's clock can hold (about
  // 292 years of nanoseconds from its start): no run reaches it, and its nanoseconds would
  // overflow. Redis 7.0 blocks on `WAIT 1 9223372036854775807` too.
  // (From the later of the true and the monotonic now: both are advanced by the delay.)
  const int64_t ms_to_last_instant =
      (Instant::max() - std::max(monotonic_now(), simulator().now())).ns() / 1'000'000;
  if (timeout_ms > 0 && timeout_ms < ms_to_last_instant) {
    waiter.timer = start_timer_after(Duration::from_ms(timeout_ms), tag);
  }
  waiters_.emplace(tag, std::move(waiter));
  for (const auto& [replica, state] : replicas_)
    send_message(replica, make_command("REPLCONF", "GETACK", "*"), 0);
  return true;
}

int64_t ClusterNode::count_acked(int64_t offset) const {
  int64_t count = 0;
  for (const auto& [replica, state] : replicas_) {
    if (state.acked_offset >= offset) ++count;
  }
  return count;
}

void ClusterNode::check_waiters() {
  for (auto it = waiters_.begin(); it != waiters_.end();) {
    const int64_t acked = count_acked(it->second.offset);
    if (acked < it->second.replicas_wanted) {
      ++it;
      continue;
    }
    if (it->second.timer != 0) cancel_timer(it->second.timer);
    reply_to(it->second.request, Reply::integer_reply(acked));
    it = waiters_.erase(it);
  }
}

void ClusterNode::on_wait_timeout(uint64_t tag) {
  const auto it = waiters_.find(tag);
  if (it == waiters_.end()) return;
  reply_to(it->second.request, Reply::integer_reply(count_acked(it->second.offset)));
  waiters_.erase(it);
}

void ClusterNode::unblock_waiters(const std::string& error) {
  for (auto& [tag, waiter] : waiters_) {
    if (waiter.timer != 0) cancel_timer(waiter.timer);
    reply_to(waiter.request, Reply::error(error));
  }
  waiters_.clear();
}

// ---- timers, crash, restart ----

void ClusterNode::on_timer(uint64_t tag) {
  if (take_timer_while_busy(tag)) return;  // no time event runs while a script is busy
  if (tag == cron_tag) {
    cron();
  } else if (tag == full_sync_tag) {
    start_full_syncs();
  } else if (tag == rdb_tag) {
    rdb_armed_ = false;
    persistence_.save_rdb(engine().snapshot());  // `save <interval> 1`, as a completed BGSAVE
    start();
  } else if (tag >= block_timer_tag_base) {
    RedisNode::on_timer(tag);  // a BLPOP timeout
  } else if (tag >= wait_tag_base) {
    on_wait_timeout(tag);
  } else {
    RedisNode::on_timer(tag);
  }
}

void ClusterNode::on_crash() {
  keys_at_stop_ = engine().key_count();
  RedisNode::on_crash();
  replicas_.clear();
  full_syncs_pending_.clear();
  waiters_.clear();  // their timers are gone and their clients' connections closed
  client_write_offsets_.clear();
  link_ = Link::down;
  cron_armed_ = false;
  rdb_armed_ = false;
  applying_stream_ = false;
}

void ClusterNode::on_restart() {
  const bool master = is_master();
  engine().set_replica(!master);
  const LoadResult loaded = persistence_.load(engine(), wall_now(), master);
  // A new run id and history: replicas of a restarted master resync fully (F10).
  replid_ = new_replication_id();
  replid2_ = "0000000000000000000000000000000000000000";
  second_offset_ = -1;
  offset_ = 0;
  backlog_.clear();
  backlog_bytes_ = 0;
  const std::size_t lost = keys_at_stop_ > loaded.keys ? keys_at_stop_ - loaded.keys : 0;
  tell(ClusterEvent{.kind = ClusterEventKind::restarted,
                    .keys_loaded = loaded.keys,
                    .keys_before_stop = keys_at_stop_,
                    .keys_lost = lost,
                    .load_source = loaded.source});
  RedisNode::on_restart();
  link_ = Link::down;
  down_since_known_ = false;
  link_down_since_ = monotonic_now();
  start();
  if (!master) send_psync();
}

}  // namespace redlock_sim
