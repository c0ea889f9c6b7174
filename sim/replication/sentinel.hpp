// A Sentinel-like failover controller: one simulated process per sentinel, on the network like
// any process (partitions apply to it).
//
// What it does (F13, docs/cluster-model.md):
// - every second (its monotonic clock) it sends PING and INFO replication to every node of the
//   group, and a hello carrying its configuration (epoch, master) to the other sentinels;
// - the master is subjectively down (SDOWN) once down_after_ms pass without a valid PING reply
//   (+PONG, -LOADING or -MASTERDOWN);
// - while SDOWN it asks the other sentinels every second whether they see it down; with
//   `quorum` of them (itself included) the master is objectively down (ODOWN);
// - it then asks for votes in a new epoch (after a desync delay of 100 ms per position in the
//   sentinel list, where real Sentinel waits a random time under 1 s); each sentinel votes once
//   per epoch, for the first asker; a leader needs max(quorum, majority of all sentinels) votes;
// - the leader promotes failover_delay_ms after SDOWN (the catalogue's convention): it picks the
//   replica by priority (0: never), then replication offset, then name (for the run id),
//   excluding replicas unreachable for 5 s, with INFO older than 3 s, or whose link to the
//   master has been down longer than down_after_ms * 10 + the time since SDOWN; it sends
//   REPLICAOF NO ONE to it and REPLICAOF <it> to every other node, including the old master;
// - any sentinel converts a node that contradicts its configuration (a master that is not the
//   current one, a replica of another node) into a replica of the current master once the
//   contradiction has lasted 4 s: an old master that becomes reachable again loses its data
//   ("last failover wins");
// - a configuration with a higher epoch, learnt from a hello, replaces its own;
// - whenever its master changes it sends `+switch-master <master_name> <node>` as a one-way
//   message to every subscribed client, and it answers
//   `SENTINEL get-master-addr-by-name <master_name>` with [node, "6379"].
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "sim/kernel/simulator.hpp"
#include "sim/replication/cluster_event.hpp"

namespace redlock_sim {

struct SentinelOptions {
  std::string master_name = "mymaster";
  ProcessId master = 0;              // the initial master
  std::vector<ProcessId> nodes;      // the master and its replicas (the monitored group)
  std::vector<ProcessId> sentinels;  // every sentinel, this one included, in spec order
  const std::vector<ProcessId>* subscribers = nullptr;  // clients that get +switch-master
  uint32_t quorum = 2;
  int64_t down_after_ms = 5'000;
  int64_t failover_delay_ms = 1'000;
  int64_t failover_timeout_ms = 10'000;  // an election not won by then is abandoned
};

class SentinelProcess : public Process {
 public:
  using Observer = std::function<void(ProcessId, const ClusterEvent& event)>;

  SentinelProcess(Simulator& simulator, ProcessId id, std::string name, SentinelOptions options);

  void set_observer(Observer observer) { observer_ = std::move(observer); }
  void start();  // begins the once-a-second tick; the Cluster calls it at time zero

  ProcessId current_master() const { return master_; }
  uint64_t config_epoch() const { return config_epoch_; }
  bool master_sdown() const { return sdown_; }
  bool master_odown() const { return odown_; }

  // The replica a failover would pick now, from this sentinel's view (for tests and stories).
  std::optional<ProcessId> select_replica() const;

 protected:
  void on_message(Message& message) override;
  void on_timer(uint64_t tag) override;
  void on_crash() override;
  void on_restart() override;

 private:
  // Timer tags, shared by sentinel.cpp (which arms them) and sentinel_failover.cpp (which
  // dispatches them).
  static constexpr uint64_t tick_tag = 1;
  static constexpr uint64_t sdown_tag = 2;
  static constexpr uint64_t failover_start_tag = 3;
  static constexpr uint64_t promote_tag = 4;
  struct NodeView {
    Instant last_valid_reply;  // monotonic; the start time until the first reply
    // When the oldest PING still unanswered was sent (Sentinel's act_ping_time): SDOWN is
    // measured from it, not from the last reply.
    std::optional<Instant> ping_pending_since;
    Instant info_time;
    bool has_info = false;
    bool reports_master = false;
    std::string master_host;
    int64_t link_down_ms = 0;
    int64_t offset = 0;
    int64_t priority = 100;
    std::optional<Instant> contradiction_since;
  };
  enum class RequestKind : uint8_t { ping, info, is_down, vote, command };
  struct Pending {
    ProcessId to = 0;
    RequestKind kind = RequestKind::ping;
    Instant sent;
  };

  void tell(ClusterEventKind kind, std::string detail);
  uint64_t request(ProcessId to, Command command, RequestKind kind);
  void tick();
  void arm_tick();
  void arm_sdown_timer();
  void send_ping(ProcessId node);
  void on_link_closed(ProcessId node);
  void check_sdown();
  void check_odown();
  void try_failover();
  void start_election();
  void check_elected();
  void on_reply(const Message& message);
  void on_ping_reply(ProcessId from, const Reply& reply);
  void on_info_reply(ProcessId from, const Reply& reply);
  void on_is_down_reply(ProcessId from, const Reply& reply);
  void on_request(const Message& message);
  Reply vote(const Command& argv);
  void on_hello(const Command& argv);
  void promote();
  void switch_master(ProcessId master, const std::string& why);
  void convert_contradicting_nodes();
  std::optional<ProcessId> node_named(const std::string& name) const;
  const std::string& name_of(ProcessId id) const { return world_.process(id).name(); }
  std::size_t position() const;

  Simulator& world_;  // Process::simulator() is not const
  SentinelOptions options_;
  Observer observer_;
  std::map<ProcessId, NodeView> views_;
  std::map<uint64_t, Pending> pending_;
  uint64_t next_request_ = 0;

  ProcessId master_;
  uint64_t config_epoch_ = 0;
  uint64_t current_epoch_ = 0;
  std::string voted_leader_;
  uint64_t voted_epoch_ = 0;

  bool sdown_ = false;
  bool odown_ = false;
  Instant sdown_since_;
  std::map<ProcessId, Instant> peers_saying_down_;
  TimerId sdown_timer_ = 0;
  bool tick_armed_ = false;

  // Failover: an election in progress, then the leader's wait until the promotion.
  bool electing_ = false;
  bool leading_ = false;
  bool failover_start_armed_ = false;
  uint64_t election_epoch_ = 0;
  Instant election_started_;
  std::set<ProcessId> votes_;
  Instant failover_blocked_until_;
};

}  // namespace redlock_sim
