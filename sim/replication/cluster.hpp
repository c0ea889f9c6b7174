// The seam between a scenario and the replicated, persistent Redis world: Cluster builds the
// node processes (ClusterNode: persistence + replication) and the sentinel processes from the
// scenario's NodeSpec / FailoverSpec, and applies the stop semantics of the crash faults.
//
// How the runner uses it:
//   Cluster cluster(simulator, scenario.nodes, scenario.failover);   // before adding clients
//   cluster.set_observer(...);                 // story events (kinds below)
//   cluster.subscribe_client(client_id);       // gets `+switch-master <master_name> <node>`
//   faults crash / power_loss / shutdown  ->  cluster.crash(id, StopKind)
//   fault restart (and supervised restarts) ->  simulator.restart(id) (the node reloads itself)
// The Cluster must outlive the run: its processes call back into it.
//
// Process ids: the nodes in scenario order, then the sentinels in FailoverSpec order, all
// consecutive from the simulator's next free id. Each node's clock is set from its ClockSpec
// (wall = default_epoch_ms + offset_ms at true time zero, monotonic 0, the spec's rate), as the
// runner sets clocks. At true time zero (a scheduled action) replicas are attached to their
// masters already in sync (or, when the runner said so, start with their link down since a time
// before the run), and every node and sentinel starts its timers.
//
// The observer gets typed ClusterEvents (sim/replication/cluster_event.hpp): node restarts with the
// keys they kept and lost, persistence, replication, promotion, REPLICAOF, and the sentinels'
// state changes under Redis's own event names.
//
// Addressing "the current master": a client asks any sentinel with the request
// `SENTINEL get-master-addr-by-name <master_name>` (reply: [node name, "6379"]) or follows the
// `+switch-master` one-way messages; a node's name maps to its id with id_of().
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "sim/replication/cluster_node.hpp"
#include "sim/replication/sentinel.hpp"
#include "sim/scenario/scenario.hpp"

namespace redlock_sim {

class Cluster {
 public:
  using Observer = std::function<void(ProcessId, const ClusterEvent& event)>;

  Cluster(Simulator& simulator, const std::vector<NodeSpec>& nodes, const FailoverSpec& failover);
  Cluster(const Cluster&) = delete;
  Cluster& operator=(const Cluster&) = delete;

  bool contains(const std::string& name) const { return ids_.count(name) != 0; }
  ProcessId id_of(const std::string& name) const;  // nodes and sentinels
  bool is_node(ProcessId id) const;
  bool is_sentinel(ProcessId id) const;
  ClusterNode& node(ProcessId id);
  SentinelProcess& sentinel(ProcessId id);
  const std::vector<ProcessId>& node_ids() const { return node_ids_; }
  const std::vector<ProcessId>& sentinel_ids() const { return sentinel_ids_; }

  // A crash fault: kill -9 (StopKind::kill), power_loss or shutdown. On a node it first
  // applies what that kind of stop leaves on disk (and the FIN a kill or shutdown sends), then
  // Simulator::crash. Sentinels just crash.
  void crash(ProcessId id, StopKind how);
  void subscribe_client(ProcessId client) { subscribers_.push_back(client); }
  void set_observer(Observer observer) { observer_ = std::move(observer); }
  // Before time zero: `replica` starts as a replica in sync with its master until the cut's
  // start, each cut direction silent since then (ClusterNode::attach_cut_before_run), instead of
  // in sync at zero.
  void set_cut_before_run(ProcessId replica, LinkCutBeforeRun cut);

  // The master as the first sentinel sees it (or the failover spec's master), for reports.
  std::optional<ProcessId> current_master() const;

 private:
  void start();

  Simulator& simulator_;
  std::map<std::string, ProcessId> ids_;
  std::vector<ProcessId> node_ids_;
  std::vector<ProcessId> sentinel_ids_;
  std::vector<std::pair<ProcessId, ProcessId>> initial_replication_;  // (replica, master)
  std::map<ProcessId, LinkCutBeforeRun> cuts_before_run_;             // by replica
  std::vector<ProcessId> subscribers_;
  std::optional<ProcessId> failover_master_;
  Observer observer_;
};

}  // namespace redlock_sim
