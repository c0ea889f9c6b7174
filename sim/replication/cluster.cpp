#include "sim/replication/cluster.hpp"

#include <algorithm>

#include "sim/kernel/assert.hpp"

namespace redlock_sim {

namespace {
ProcessClock clock_from(const ClockSpec& clock) {
  return ProcessClock(
      ProcessClock::Options{.true_start = Instant::zero(),
                            .wall_at_start = Instant::from_ms(default_epoch_ms + clock.offset_ms),
                            .monotonic_at_start = Instant::zero(),
                            .rate = clock.rate});
}
}  // namespace

Cluster::Cluster(Simulator& simulator, const std::vector<NodeSpec>& nodes,
                 const FailoverSpec& failover)
    : simulator_(simulator) {
  const auto observe = [this](ProcessId process, const ClusterEvent& event) {
    if (observer_) observer_(process, event);
  };
  for (const NodeSpec& spec : nodes) {
    auto& node = simulator_.add_process<ClusterNode>(
        spec.name, EngineOptions{.version = spec.redis_version, .replica = spec.role == "replica"},
        ClusterNodeOptions{.persistence = spec.persistence,
                           .replica_priority = spec.replica_priority});
    node.clock() = clock_from(spec.clock);
    node.engine().config().min_replicas_to_write = spec.min_replicas_to_write;
    node.engine().config().min_replicas_max_lag = spec.min_replicas_max_lag_s;
    node.set_observer(observe);
    node.set_resolver([this](const std::string& name) -> std::optional<ProcessId> {
      const auto it = ids_.find(name);
      if (it == ids_.end() || !is_node(it->second)) return std::nullopt;
      return it->second;
    });
    ids_[spec.name] = node.id();
    node_ids_.push_back(node.id());
  }
  for (const NodeSpec& spec : nodes) {
    if (spec.role != "replica") continue;
    SIM_ASSERT(ids_.count(spec.replica_of) == 1);
    initial_replication_.emplace_back(ids_.at(spec.name), ids_.at(spec.replica_of));
  }
  if (failover.enabled) {
    failover_master_ = ids_.at(failover.master);
    std::vector<ProcessId> group{*failover_master_};
    for (const auto& [replica, master] : initial_replication_) {
      if (master == *failover_master_) group.push_back(replica);
    }
    std::vector<ProcessId> sentinel_ids;
    for (std::size_t i = 0; i < failover.sentinels.size(); ++i)
      sentinel_ids.push_back(static_cast<ProcessId>(simulator_.process_count() + i));
    for (const std::string& name : failover.sentinels) {
      auto& sentinel = simulator_.add_process<SentinelProcess>(
          name, SentinelOptions{.master_name = failover.master_name,
                                .master = *failover_master_,
                                .nodes = group,
                                .sentinels = sentinel_ids,
                                .subscribers = &subscribers_,
                                .quorum = failover.quorum,
                                .down_after_ms = failover.down_after_ms,
                                .failover_delay_ms = failover.failover_delay_ms});
      sentinel.set_observer(observe);
      ids_[name] = sentinel.id();
      sentinel_ids_.push_back(sentinel.id());
    }
    SIM_ASSERT(sentinel_ids_ == sentinel_ids);
    for (ProcessId member : group)
      node(member).set_monitors(sentinel_ids_);
  }
  // At time zero, after whoever built the world has set clocks: timers are aimed on them.
  simulator_.schedule_action(simulator_.now(), [this] { start(); });
}

void Cluster::set_cut_before_run(ProcessId replica, LinkCutBeforeRun cut) {
  SIM_ASSERT(is_node(replica));
  SIM_ASSERT(!cut.from_master || *cut.from_master < Instant::zero());
  SIM_ASSERT(!cut.to_master || *cut.to_master < Instant::zero());
  cuts_before_run_[replica] = cut;
}

void Cluster::start() {
  for (const auto& [replica, master] : initial_replication_) {
    const auto cut = cuts_before_run_.find(replica);
    if (cut != cuts_before_run_.end()) {
      node(replica).attach_cut_before_run(node(master), cut->second);
    } else {
      node(replica).attach_in_sync(node(master));
    }
  }
  for (ProcessId id : node_ids_) {
    if (simulator_.process(id).status() != ProcessStatus::crashed) node(id).start();
  }
  for (ProcessId id : sentinel_ids_) {
    if (simulator_.process(id).status() != ProcessStatus::crashed) sentinel(id).start();
  }
}

ProcessId Cluster::id_of(const std::string& name) const {
  const auto it = ids_.find(name);
  SIM_ASSERT(it != ids_.end());
  return it->second;
}

bool Cluster::is_node(ProcessId id) const {
  return std::find(node_ids_.begin(), node_ids_.end(), id) != node_ids_.end();
}

bool Cluster::is_sentinel(ProcessId id) const {
  return std::find(sentinel_ids_.begin(), sentinel_ids_.end(), id) != sentinel_ids_.end();
}

ClusterNode& Cluster::node(ProcessId id) {
  SIM_ASSERT(is_node(id));
  return static_cast<ClusterNode&>(simulator_.process(id));
}

SentinelProcess& Cluster::sentinel(ProcessId id) {
  SIM_ASSERT(is_sentinel(id));
  return static_cast<SentinelProcess&>(simulator_.process(id));
}

void Cluster::crash(ProcessId id, StopKind how) {
  if (simulator_.process(id).status() == ProcessStatus::crashed) return;
  if (is_node(id)) node(id).prepare_stop(how);
  simulator_.crash(id);
}

std::optional<ProcessId> Cluster::current_master() const {
  if (sentinel_ids_.empty()) return failover_master_;
  return static_cast<const SentinelProcess&>(simulator_.process(sentinel_ids_.front()))
      .current_master();
}

}  // namespace redlock_sim
