// A Redis node with persistence and replication: a RedisNode that keeps AOF/RDB files through
// crashes and reloads them on restart, streams its writes to replicas over the simulated
// network (or follows a master), answers WAIT with a deferred reply, enforces
// min-replicas-to-write, and reports ROLE / INFO replication from its real state.
//
// Replication protocol (one-way messages on the node-to-node links; docs/cluster-model.md):
//   replica -> master   PSYNC <replid> <offset>          (offset = bytes the replica has)
//   master  -> replica  FULLRESYNC <replid> <offset> <snapshot>  |  CONTINUE <replid> <offset>
//                       <commands>  then  REPLSTREAM <replid> <start offset> <commands>
//   master  -> replica  REPLPING <replid> <offset> every second; REPLCONF GETACK during WAIT
//   replica -> master   REPLCONF ACK <offset> every second and on GETACK
//   either way          REPLLINKCLOSED: the connection closed (kill -9, shutdown, REPLICAOF)
// Offsets count RESP bytes of the propagated commands, as Redis's do. A replica that sees a
// stream message not starting at its own offset (a partition dropped some) resyncs: partially
// from the master's backlog when it still holds the missing range, else fully.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "sim/redis/node.hpp"
#include "sim/replication/cluster_event.hpp"
#include "sim/replication/persistence.hpp"

namespace redlock_sim {

struct ClusterNodeOptions {
  PersistenceSpec persistence;
  int64_t replica_priority = 100;
  int64_t repl_timeout_ms = 60'000;  // Redis's repl-timeout: a silent link is declared down
  int64_t repl_backlog_bytes = 1'048'576;
  // Redis's repl-diskless-sync-delay (7.0 default 5 s): a full resync's transfer starts this
  // long after the replica asked, so that more replicas can share it; 0 starts it at once.
  int64_t repl_diskless_sync_delay_ms = 5'000;
};

// A replication link cut before the run: since when (monotonic, before zero) each direction has
// carried nothing, or nothing for a direction that still carries messages.
struct LinkCutBeforeRun {
  std::optional<Instant> from_master;  // the replica's last I/O from its master
  std::optional<Instant> to_master;    // the master's last ACK from the replica
};

class ClusterNode : public RedisNode {
 public:
  using Resolver = std::function<std::optional<ProcessId>(const std::string& name)>;
  using Observer = std::function<void(ProcessId, const ClusterEvent& event)>;

  ClusterNode(Simulator& simulator, ProcessId id, std::string name, EngineOptions engine_options,
              ClusterNodeOptions options);

  // REPLICAOF names masters by process name; the Cluster resolves them.
  void set_resolver(Resolver resolver) { resolver_ = std::move(resolver); }
  void set_observer(Observer observer) { observer_ = std::move(observer); }
  // Sees every write this node makes (client commands, the replication stream it applies, its
  // own expiries) before persistence and replication consume them: reports rebuild key
  // lifetimes from it.
  using EffectsObserver = std::function<void(ClusterNode&, const std::vector<Propagated>&)>;
  void set_effects_observer(EffectsObserver observer) { effects_observer_ = std::move(observer); }
  // Before the run: make this node a replica of `master`, already in sync (both start empty).
  void attach_in_sync(ClusterNode& master);
  // Before the run: make this node a replica of `master` that was in sync (its replid and
  // offset) until a silent cut began before the run, the same cut as one beginning at zero:
  // the replica's last I/O from the master is `cut.from_master`, and its link goes down
  // repl-timeout later (backdated to then when that is not after now, so INFO's
  // master_link_down_since_seconds and Sentinel's eligibility count from then; otherwise it
  // starts up and notices in the run). The master's last ACK from it is `cut.to_master`, and
  // the master no longer lists it when its own repl-timeout has passed since then.
  void attach_cut_before_run(ClusterNode& master, const LinkCutBeforeRun& cut);
  // Arms the once-a-second cron and the RDB timer; the Cluster calls it at time zero.
  void start();
  // Keys the node had before the run: in its keyspace and, with persistence, on its disk as
  // durable (an RDB snapshot, or the AOF's base), as if written and saved long before.
  void seed(const std::vector<SnapshotEntry>& entries);
  // What a stop of this kind leaves on disk, and the FIN a kill or shutdown sends to peers.
  // Call it just before Simulator::crash (Cluster::crash does).
  void prepare_stop(StopKind kind);
  // The sentinels monitoring this node: a kill or shutdown closes their connections too.
  void set_monitors(std::vector<ProcessId> sentinels) { monitors_ = std::move(sentinels); }

  bool is_master() const { return !master_.has_value(); }
  std::optional<ProcessId> master() const { return master_; }
  bool master_link_up() const { return link_ == Link::up; }
  const std::string& replication_id() const { return replid_; }
  int64_t replication_offset() const { return offset_; }
  std::size_t connected_replicas() const { return replicas_.size(); }
  // Replicas that acked within min-replicas-max-lag (what min-replicas-to-write counts).
  std::size_t good_replicas() const;
  const Persistence& persistence() const { return persistence_; }
  int64_t replica_priority() const { return options_.replica_priority; }
  // Resyncs this node received as a replica.
  uint64_t full_resyncs() const { return full_resyncs_; }
  uint64_t partial_resyncs() const { return partial_resyncs_; }

 protected:
  void on_message(Message& message) override;
  Reply handle(const Message& request) override;
  void on_timer(uint64_t tag) override;
  void on_crash() override;
  void on_restart() override;

 private:
  enum class Link : uint8_t { down, syncing, up };
  struct ReplicaState {
    int64_t acked_offset = 0;
    Instant last_ack;  // monotonic
  };
  struct BacklogEntry {
    int64_t start = 0;
    int64_t length = 0;
    Command command;
  };
  struct Waiter {
    Message request;
    int64_t replicas_wanted = 0;
    int64_t offset = 0;
    TimerId timer = 0;
  };

  void tell(ClusterEvent event);
  void tell(ClusterEventKind kind, std::string detail);
  void on_effects(std::vector<Propagated>& effects);
  void stream(const std::vector<Command>& commands);
  void add_to_backlog(const Command& command);
  // As in Redis, the backlog exists once a replica has connected: before that only the offset
  // moves (a master that never has replicas copies nothing and streams nothing).
  bool offset_only() const { return replicas_.empty() && backlog_.empty(); }
  bool backlog_covers(int64_t offset) const;
  void send_ack();
  void arm_cron();
  void cron();
  void master_cron();
  void replica_cron();
  void send_psync();
  void link_down(const std::string& why);

  bool handle_internal(Message& message);
  void on_psync(const Message& message);
  void on_full_resync(const Message& message);
  void on_continue(const Message& message);
  void on_stream(const Message& message);
  void on_ack(const Message& message, int64_t offset);
  void apply_from_master(const std::vector<Command>& commands);
  bool from_live_master(const Message& message) const;

  bool handle_wait(Message& message);
  int64_t count_acked(int64_t offset) const;
  void check_waiters();
  void on_wait_timeout(uint64_t tag);
  void unblock_waiters(const std::string& error);

  Reply replicaof(const Command& argv);
  void promote();
  void follow(ProcessId master);
  Reply role_reply() const;
  std::string info_text() const;
  bool writes_refused() const;
  Reply handle_command(const Message& request);  // handle's general case
  Reply execute_refusing_writes(const Message& request);
  std::string new_replication_id();

  const std::string& name_of(ProcessId id) const { return world_.process(id).name(); }

  Simulator& world_;  // Process::simulator() is not const
  ClusterNodeOptions options_;
  Persistence persistence_;
  Resolver resolver_;
  Observer observer_;
  EffectsObserver effects_observer_;

  // Replication, both roles. On a replica replid_/offset_ are the master's stream position.
  std::string replid_;
  std::string replid2_ = "0000000000000000000000000000000000000000";
  int64_t offset_ = 0;
  int64_t second_offset_ = -1;  // the last offset of replid2_'s history (Redis: minus one)
  std::deque<BacklogEntry> backlog_;
  int64_t backlog_bytes_ = 0;
  uint64_t replid_counter_ = 0;

  // Master role.
  std::map<ProcessId, ReplicaState> replicas_;
  std::vector<ProcessId> monitors_;
  // Replicas waiting for a full resync's transfer to start, and when each asked.
  std::map<ProcessId, Instant> full_syncs_pending_;
  void start_full_syncs();
  void send_full_resync(ProcessId replica);
  // Redis's c->woff, per client process, by process id (0: none written; ids are small): written
  // after every write on a master, where a map's search cost more than the write.
  std::vector<int64_t> client_write_offsets_;
  std::map<uint64_t, Waiter> waiters_;  // by timer tag
  uint64_t next_waiter_tag_ = 0;

  // Replica role. The configured master survives restarts (Sentinel rewrites the config file).
  std::optional<ProcessId> master_;
  Link link_ = Link::down;
  Instant link_down_since_;  // monotonic
  Instant last_master_io_;   // monotonic
  // Whether link_down_since_ holds a time (Redis's repl_down_since != 0): not until the link
  // has been up since this process started (INFO prints master_link_down_since_seconds:-1);
  // a REPLICAOF sets it only when it drops a link that was up (follow).
  bool down_since_known_ = false;
  bool applying_stream_ = false;

  bool cron_armed_ = false;
  bool rdb_armed_ = false;
  std::size_t keys_at_stop_ = 0;
  uint64_t full_resyncs_ = 0;
  uint64_t partial_resyncs_ = 0;
};

}  // namespace redlock_sim
