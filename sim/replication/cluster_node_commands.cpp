// ClusterNode's client-facing commands: ROLE, INFO replication, REPLICAOF, and the
// min-replicas-to-write refusal; everything else goes to the engine.
#include "sim/redis/text.hpp"
#include "sim/replication/cluster_node.hpp"

namespace redlock_sim {

using redis_text::equals_ignore_case;
using redis_text::parse_int64;
using redis_text::to_lower;

namespace {
constexpr const char* noreplicas_error = "NOREPLICAS Not enough good replicas to write.";
constexpr const char* readonly_error = "READONLY You can't write against a read only replica.";
constexpr const char* link_closed = "REPLLINKCLOSED";
constexpr const char* port_text = "6379";  // nodes are addressed by process name; one port

bool arity_ok(const RedisEngine::CommandSpec& spec, std::size_t argc) {
  const auto count = static_cast<int>(argc);
  return spec.arity > 0 ? count == spec.arity : count >= -spec.arity;
}
}  // namespace

Reply ClusterNode::handle(const Message& request) {
  const Command& argv = request.command();
  // Compared in place: a lowercased copy of every command's name cost an allocation a request.
  const std::string& name = argv.front();
  // ROLE and INFO (4 letters), SLAVEOF (7) and REPLICAOF (9): a name is compared only with those
  // of its length (SET with none of them, EVAL with ROLE's and INFO's first letters only).
  switch (name.size()) {
    case 4: {
      const char first = static_cast<char>(name[0] | 0x20);  // A-Z lowered; no other byte made r/i
      if (first == 'r' && argv.size() == 1 && equals_ignore_case(name, "role")) return role_reply();
      if (first == 'i' && equals_ignore_case(name, "info")) {
        Reply reply = RedisNode::handle(request);  // the engine decides whether it is asked
        if (reply.type == ReplyType::bulk && !reply.text.empty()) reply.text = info_text();
        return reply;
      }
      break;
    }
    case 7:
    case 9:
      if (equals_ignore_case(name, "replicaof") || equals_ignore_case(name, "slaveof")) {
        if (argv.size() != 3) return Reply::error(redis_text::wrong_arity(to_lower(name)));
        return replicaof(argv);
      }
      break;
    default:
      break;
  }
  return handle_command(request);
}

// Apart from handle's special cases so that its one named reply is built in the caller's place
// (g++ moves a named return value when other return statements return other objects).
Reply ClusterNode::handle_command(const Message& request) {
  const int64_t before = offset_;
  // RedisNode::handle's step made here (execute of the request's argv): one call less a request.
  Reply reply = writes_refused() ? execute_refusing_writes(request) : execute(request.command());
  // Redis's c->woff: the offset right after this client's last command that propagated.
  if (is_master() && offset_ != before) {
    if (request.from >= client_write_offsets_.size()) {
      client_write_offsets_.resize(std::size_t{request.from} + 1, 0);
    }
    client_write_offsets_[request.from] = offset_;
  }
  return reply;
}

bool ClusterNode::writes_refused() const {
  const EngineConfig& config = engine().config();
  return is_master() && config.min_replicas_to_write > 0 && config.min_replicas_max_lag > 0 &&
         static_cast<int64_t>(good_replicas()) < config.min_replicas_to_write;
}

Reply ClusterNode::execute_refusing_writes(const Message& request) {
  const Command& argv = request.command();
  const RedisEngine::CommandSpec* spec = RedisEngine::find_command(argv.front());
  if (spec != nullptr && arity_ok(*spec, argv.size()) && (spec->flags & command_write) != 0) {
    return Reply::error(noreplicas_error);
  }
  const std::string name = to_lower(argv.front());
  if (name != "eval" && name != "evalsha") return RedisNode::handle(request);
  // A script without flags is refused at its first write (scriptVerifyWriteCommandAllow), with
  // the same wording as a replica's READONLY refusal: run it refusing writes as a replica does
  // and substitute the text. (Reads of expired keys inside it do not delete them meanwhile.)
  engine().set_replica(true);
  Reply reply = RedisNode::handle(request);
  engine().set_replica(false);
  if (reply.is_error()) {
    const std::size_t at = reply.text.find(readonly_error);
    if (at != std::string::npos) {
      reply.text.replace(at, std::string(readonly_error).size(), noreplicas_error);
    }
  }
  return reply;
}

Reply ClusterNode::replicaof(const Command& argv) {
  if (equals_ignore_case(argv[1], "no") && equals_ignore_case(argv[2], "one")) {
    if (!is_master()) promote();
    return Reply::ok();
  }
  int64_t port = 0;
  if (!parse_int64(argv[2], port)) return Reply::error(redis_text::not_integer);
  const std::optional<ProcessId> target = resolver_ ? resolver_(argv[1]) : std::nullopt;
  // Real Redis accepts any host and retries connecting; here a master must be a node's name.
  if (!target || *target == id()) return Reply::error("ERR Invalid master address");
  if (master_ == target) return Reply::status("OK Already connected to specified master");
  follow(*target);
  return Reply::ok();
}

void ClusterNode::promote() {
  tell(ClusterEventKind::promoted,
       "REPLICAOF NO ONE at offset " + std::to_string(offset_) +
           ": a new replication id; keys now expire on this node's clock");
  if (master_) send_message(*master_, make_command(link_closed), 0);
  master_.reset();
  link_ = Link::down;
  // F14: a new id; the old one stays as the secondary so the other replicas can continue.
  replid2_ = replid_;
  second_offset_ = offset_;
  replid_ = new_replication_id();
  engine().set_replica(false);
  arm_expire_timer();
}

void ClusterNode::follow(ProcessId master) {
  tell(ClusterEventKind::replica_of, "now a replica of " + name_of(master));
  if (master_) send_message(*master_, make_command(link_closed), 0);
  for (const auto& [replica, state] : replicas_)
    send_message(replica, make_command(link_closed), 0);
  replicas_.clear();
  unblock_waiters(
      "UNBLOCKED force unblock from blocking operation, instance state changed (master -> "
      "replica?)");
  // A former master keeps its own id and offset as its cached master, so it can continue
  // partially if its history is a prefix of the new master's; else it resyncs fully and loses
  // what only it had ("last failover wins").
  // Redis 7.0.15, checked: a replica whose link was up counts master_link_down_since from the
  // REPLICAOF (dropping the old master's link sets repl_down_since); a master made a replica,
  // or a replica whose link was already down, keeps what it had: -1 if its link has not been up
  // since it started.
  if (master_ && link_ == Link::up) {
    link_down_since_ = monotonic_now();
    down_since_known_ = true;
  }
  master_ = master;
  engine().set_replica(true);
  link_ = Link::down;
  send_psync();
}

Reply ClusterNode::role_reply() const {
  if (is_master()) {
    ReplyList replicas;
    for (const auto& [replica, state] : replicas_) {
      replicas.push_back(Reply::array({Reply::bulk(name_of(replica)), Reply::bulk(port_text),
                                       Reply::bulk(std::to_string(state.acked_offset))}));
    }
    return Reply::array(
        {Reply::bulk("master"), Reply::integer_reply(offset_), Reply::array(std::move(replicas))});
  }
  const char* state = link_ == Link::up ? "connected" : link_ == Link::syncing ? "sync" : "connect";
  return Reply::array({Reply::bulk("slave"), Reply::bulk(name_of(*master_)),
                       Reply::integer_reply(6379), Reply::bulk(state),
                       Reply::integer_reply(offset_)});
}

std::string ClusterNode::info_text() const {
  const auto line = [](std::string& text, const std::string& field, const std::string& value) {
    text += field + ":" + value + "\r\n";
  };
  const int64_t now_ms = monotonic_now().ms_floor();
  std::string text = "# Replication\r\n";
  if (is_master()) {
    line(text, "role", "master");
    line(text, "connected_slaves", std::to_string(replicas_.size()));
    int index = 0;
    for (const auto& [replica, state] : replicas_) {
      line(text, "slave" + std::to_string(index++),
           "ip=" + name_of(replica) + ",port=" + port_text +
               ",state=online,offset=" + std::to_string(state.acked_offset) +
               ",lag=" + std::to_string((now_ms - state.last_ack.ms_floor()) / 1000));
    }
  } else {
    const bool up = link_ == Link::up;
    line(text, "role", "slave");
    line(text, "master_host", name_of(*master_));
    line(text, "master_port", port_text);
    line(text, "master_link_status", up ? "up" : "down");
    line(text, "master_last_io_seconds_ago",
         up ? std::to_string((now_ms - last_master_io_.ms_floor()) / 1000) : "-1");
    line(text, "master_sync_in_progress", link_ == Link::syncing ? "1" : "0");
    line(text, "slave_read_repl_offset", std::to_string(offset_));
    line(text, "slave_repl_offset", std::to_string(offset_));
    if (!up) {
      // Redis prints -1 until the link has been up once since the process started (a replica
      // restarted while cut off); Sentinel reads it as -1000 ms, so always eligible.
      line(
          text, "master_link_down_since_seconds",
          down_since_known_ ? std::to_string((now_ms - link_down_since_.ms_floor()) / 1000) : "-1");
    }
    line(text, "slave_priority", std::to_string(options_.replica_priority));
    line(text, "slave_read_only", "1");
    line(text, "replica_announced", "1");
    line(text, "connected_slaves", "0");
  }
  line(text, "master_failover_state", "no-failover");
  line(text, "master_replid", replid_);
  line(text, "master_replid2", replid2_);
  line(text, "master_repl_offset", std::to_string(offset_));
  line(text, "second_repl_offset", std::to_string(second_offset_ >= 0 ? second_offset_ + 1 : -1));
  const int64_t first = backlog_.empty() ? offset_ : backlog_.front().start;
  line(text, "repl_backlog_active", "1");
  line(text, "repl_backlog_size", std::to_string(options_.repl_backlog_bytes));
  line(text, "repl_backlog_first_byte_offset", std::to_string(first + 1));
  line(text, "repl_backlog_histlen", std::to_string(backlog_bytes_));
  return text;
}

}  // namespace redlock_sim
