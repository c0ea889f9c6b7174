// What the replicated, persistent Redis world tells the runner: typed records, not sentences.
// The story's sentence is a rendering (cluster_event_text); probes and reports read the fields.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace redlock_sim {

enum class ClusterEventKind : uint8_t {
  // nodes
  restarted,       // keys_loaded from load_source, keys_before_stop, keys_lost
  persistence,     // what a stop left of the AOF
  replication,     // on a master or a replica: resyncs served, link down, replica timed out
  full_resync,     // on the replica
  partial_resync,  // on the replica
  promoted,        // REPLICAOF NO ONE
  replica_of,      // REPLICAOF <master>
  // sentinels (Redis's own event names)
  sdown,
  sdown_cleared,
  odown,
  try_failover,
  vote_for_leader,
  elected_leader,
  selected_slave,
  switch_master,
  convert_to_slave,
  failover_abort_no_good_slave,
  failover_abort_not_elected,
  // told by real sentinels only (real mode): the promoted replica reports itself a master; the
  // model's own promotion is `promoted` on the node
  promoted_slave,
};

struct ClusterEvent {
  ClusterEventKind kind = ClusterEventKind::replication;
  std::string detail;  // the rest of the sentence, for people (every kind but `restarted`)
  // restarted only
  std::size_t keys_loaded = 0;
  std::size_t keys_before_stop = 0;
  std::size_t keys_lost = 0;
  std::string load_source;
};

// The story's word for a kind: "restart", "promoted", "+odown", ...
const char* cluster_event_name(ClusterEventKind kind);
// The story's sentence after "<name>: ".
std::string cluster_event_text(const ClusterEvent& event);
// Failovers and restarts explain violations: the story tells them like faults.
bool cluster_event_is_fault_like(ClusterEventKind kind);
// The node's data was replaced wholesale (the runner re-reads its keyspace).
bool cluster_event_reloads_keys(ClusterEventKind kind);

}  // namespace redlock_sim
