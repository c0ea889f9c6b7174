#include "sim/replication/cluster_event.hpp"

namespace redlock_sim {

const char* cluster_event_name(ClusterEventKind kind) {
  switch (kind) {
    case ClusterEventKind::restarted:
      return "restart";
    case ClusterEventKind::persistence:
      return "persistence";
    case ClusterEventKind::replication:
      return "replication";
    case ClusterEventKind::full_resync:
      return "full-resync";
    case ClusterEventKind::partial_resync:
      return "partial-resync";
    case ClusterEventKind::promoted:
      return "promoted";
    case ClusterEventKind::replica_of:
      return "replicaof";
    case ClusterEventKind::sdown:
      return "+sdown";
    case ClusterEventKind::sdown_cleared:
      return "-sdown";
    case ClusterEventKind::odown:
      return "+odown";
    case ClusterEventKind::try_failover:
      return "+try-failover";
    case ClusterEventKind::vote_for_leader:
      return "+vote-for-leader";
    case ClusterEventKind::elected_leader:
      return "+elected-leader";
    case ClusterEventKind::selected_slave:
      return "+selected-slave";
    case ClusterEventKind::switch_master:
      return "+switch-master";
    case ClusterEventKind::convert_to_slave:
      return "+convert-to-slave";
    case ClusterEventKind::failover_abort_no_good_slave:
      return "-failover-abort-no-good-slave";
    case ClusterEventKind::failover_abort_not_elected:
      return "-failover-abort-not-elected";
    case ClusterEventKind::promoted_slave:
      return "+promoted-slave";
  }
  return "?";
}

std::string cluster_event_text(const ClusterEvent& event) {
  if (event.kind != ClusterEventKind::restarted) return event.detail;
  return "loaded " + std::to_string(event.keys_loaded) + " keys from " + event.load_source + " (" +
         std::to_string(event.keys_before_stop) + " before the stop, " +
         std::to_string(event.keys_lost) + " lost)";
}

bool cluster_event_is_fault_like(ClusterEventKind kind) {
  return kind == ClusterEventKind::promoted || kind == ClusterEventKind::promoted_slave ||
         kind == ClusterEventKind::switch_master || kind == ClusterEventKind::restarted ||
         kind == ClusterEventKind::odown || kind == ClusterEventKind::replica_of;
}

bool cluster_event_reloads_keys(ClusterEventKind kind) {
  return kind == ClusterEventKind::restarted || kind == ClusterEventKind::full_resync;
}

}  // namespace redlock_sim
