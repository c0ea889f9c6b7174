#include "sim/explore/matrix.hpp"

namespace redlock_sim {

const std::vector<MatrixColumn>& matrix_columns() {
  using F = FaultClass;
  static const std::vector<MatrixColumn> columns = {
      {"clock-jump",
       "a node's wall clock jumps, with partitions (Kleppmann, S01)",
       {F::node_clock_step, F::partition}},
      {"node-clock-rate",
       "a node's clock runs fast or slow, with partitions (S03)",
       {F::node_clock_rate, F::partition}},
      {"client-clock-rate", "a client's clock runs fast or slow (S04)", {F::client_clock_rate}},
      {"client-clock-step", "a client's wall clock jumps", {F::client_clock_step}},
      // Up to six pauses a seed, so that some land inside an acquisition (S05) as well as
      // after one (S06).
      {"client-pause",
       "a client stops (GC) with its clocks running (S05, S06)",
       {F::client_pause},
       6},
      {"node-pause", "a node stops, with partitions", {F::node_pause, F::partition}},
      {"node-restart",
       "kill -9 and restart without persistence, with partitions (S10)",
       {F::node_crash, F::partition}},
      {"power-loss",
       "power loss and restart, with partitions (S13)",
       {F::node_power_loss, F::partition}},
      {"message-delay", "one message held for seconds (the 90 s packet, S07)", {F::message_delay}},
      {"partition", "processes cut off for a while (S20, S24)", {F::partition}},
      {"client-crash", "a client dies holding the lock (S24)", {F::client_crash}},
  };
  return columns;
}

Scenario matrix_base(const std::string& lock, const MatrixTopology& topology) {
  Scenario s;
  s.name = "matrix-" + lock;
  std::vector<std::string> names;
  if (topology.replicas) {
    s.nodes.push_back({.name = "M"});
    s.nodes.push_back({.name = "R1", .role = "replica", .replica_of = "M"});
    s.nodes.push_back({.name = "R2", .role = "replica", .replica_of = "M"});
    names.push_back("M");
  } else {
    const std::size_t masters = topology.multi_node ? 5 : 1;
    for (std::size_t i = 1; i <= masters; ++i) {
      s.nodes.push_back({.name = "N" + std::to_string(i)});
      names.push_back("N" + std::to_string(i));
    }
  }
  const LockParams& params = topology.params;
  // The counter service is listed last: the fenced lock takes it for its token node, not one of
  // its own.
  if (topology.counter) names.push_back("counter");
  // Short, medium and long critical sections, all within a 2 s lock's validity (1976 ms): the
  // long one holds almost to the end of it, where clock rates and restarts matter.
  const int64_t work_ms[] = {50, 500, 1'900};
  for (int i = 0; i < 3; ++i) {
    ClientSpec client{
        .name = "C" + std::to_string(i + 1), .profile = lock, .params = params, .nodes = names};
    client.workload = WorkloadSpec{.work_ms = work_ms[i], .think_ms = 100};
    s.clients.push_back(std::move(client));
  }
  // A fourth holds past its validity without touching the register (its belief ends by its own
  // clock, S04's situation), so clock faults show on mutual exclusion without stale writes.
  ClientSpec holder{.name = "C4", .profile = lock, .params = params, .nodes = names};
  holder.workload = WorkloadSpec{.work_ms = 2'500, .think_ms = 100, .touch_resource = false};
  s.clients.push_back(std::move(holder));
  // A fifth's critical section outlasts the TTL, kept by extensions (so the extension variants
  // have something to get wrong): a pause through a deadline makes the next extension late.
  ClientSpec extender{.name = "C5", .profile = lock, .params = params, .nodes = names};
  extender.workload = WorkloadSpec{.work_ms = 3'000, .think_ms = 100, .extend_every_ms = 700};
  s.clients.push_back(std::move(extender));
  s.resource = ResourceSpec{.enabled = true};
  // Fencing exists to protect the register from a holder that lost the lock; a register that
  // ignored the tokens would charge the lock with what fencing prevents.
  if (topology.fencing_tokens) {
    s.resource.fencing = FencingMode::fence_all;
    s.resource.token_source = FencingTokenSource::lock;
  }
  s.limits.duration_ms = 6'000;
  return s;
}

ExploreConfig matrix_config(const MatrixColumn& column, const ExploreBounds& bounds) {
  ExploreConfig config;
  config.classes = column.classes;
  config.bounds = bounds;
  config.bounds.on_numerator = 1;  // every class of the column, in every seed
  config.bounds.on_denominator = 1;
  config.bounds.faults_per_class_max = column.faults_per_class_max;
  return config;
}

MatrixCell run_matrix_cell(const Scenario& base, const std::string& lock,
                           const MatrixColumn& column, uint32_t seeds, const LockFactory& factory,
                           const ExploreBounds& bounds) {
  MatrixCell cell{.lock = lock, .column = column.name, .seeds = seeds};
  const ExploreConfig config = matrix_config(column, bounds);
  for (uint64_t seed = 1; seed <= seeds; ++seed) {
    const SeedOutcome outcome = explore_seed(base, seed, config, factory);
    if (outcome.mutual_exclusion == Verdict::violated) {
      ++cell.mx_violations;
      if (cell.first_mx_seed == 0) cell.first_mx_seed = seed;
    }
    if (outcome.resource_safety == Verdict::violated) {
      ++cell.rs_violations;
      if (cell.first_rs_seed == 0) cell.first_rs_seed = seed;
    }
    if (outcome.liveness == Verdict::violated) ++cell.lv_violations;
    cell.grants += outcome.grants;
  }
  return cell;
}

const std::vector<CatalogueVerdict>& catalogue_verdicts() {
  static const std::vector<CatalogueVerdict> verdicts = {
      {"redlock", "clock-jump", "mutual_exclusion", true, "S01"},
      {"redlock", "client-clock-rate", "mutual_exclusion", true, "S04b"},
      {"redlock", "client-pause", "mutual_exclusion", false, "S05a, S06"},
      {"redlock", "client-pause", "resource_safety", true, "S06"},
      {"redlock", "message-delay", "mutual_exclusion", false, "S07"},
      {"redlock", "message-delay", "resource_safety", true, "S07"},
      {"redlock", "node-restart", "mutual_exclusion", true, "S10"},
      {"redlock", "partition", "mutual_exclusion", false, "S20 (conformant), S24"},
      {"redlock", "client-crash", "mutual_exclusion", false, "S24"},
      // S05b's point is an acquisition whose elapsed time is ignored; a paused node slows
      // acquisitions in every seed, where a client pause lands inside one only rarely (the
      // exact S05b timeline is scenarios/pause-during-acquisition-no-elapsed-check.json).
      {"zoo-no-elapsed-check", "node-pause", "mutual_exclusion", true, "S05b (slow acquisition)"},
      {"redlock", "node-pause", "mutual_exclusion", false, "S05a (slow acquisition)"},
      {"zoo-plain-del-release", "client-pause", "mutual_exclusion", true, "S22b"},
      {"single-instance", "client-pause", "mutual_exclusion", false, "S22a"},
      {"single-instance", "client-pause", "resource_safety", true, "S06"},
  };
  return verdicts;
}

}  // namespace redlock_sim
