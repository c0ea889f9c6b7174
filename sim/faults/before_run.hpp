// Faults that began before the run, in one place for the parser, the runner, the real harness
// and the shrinker: which kinds may start before time zero, and what such a start leaves behind
// at time zero. A cut that began at T < 0 is the same silent cut as one that begins at
// zero: it drops messages from time zero on, and a replica separated from its master by it has
// had no I/O from the master since T (noticed at T + repl-timeout, as any cut), its master no ACK
// from it since T.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "sim/scenario/scenario.hpp"

namespace redlock_sim {

// Whether a fault of this kind may have `at_ms < 0` (its descriptor's may_start_before_run). Only
// a partition: it leaves a state with a start that Redis reports (a replica's last I/O from its
// master, its master's last ACK from it, and so master_link_down_since_seconds), which Sentinel's
// eligibility reads. A clock change, pause, held message or stop before the run is not a state
// the run could tell from one that began at zero (or, for a stop, that the model keeps), so the
// parser refuses it.
bool may_start_before_run(const std::string& kind);

// Whether faults[index] is a heal at `at_ms` (its own, or a time the shrinker would move it to)
// that ends a cut which began before the run by time zero. The parser refuses it, as it refuses
// such a cut's until_ms <= 0: a cut that began before the run must last into it, so a heal of it
// needs at_ms > 0.
bool heals_cut_before_run_by_zero(const std::vector<FaultSpec>& faults, std::size_t index,
                                  int64_t at_ms);

// A replication link cut by a fault that began before the run and was not healed by time zero:
// when each direction went silent (ms, negative; the earliest if several cuts), or nothing when
// that direction still carries messages (a one-way cut).
struct ReplicaCutBeforeRun {
  std::optional<int64_t> from_master_ms;  // the replica has heard nothing from its master since
  std::optional<int64_t> to_master_ms;    // the master has had no ACK from the replica since
};

// Each replica whose link to its configured master is cut by a fault that began before the run
// (a kind with may_start_before_run; the replica on one side and its master on the other).
std::map<std::string, ReplicaCutBeforeRun> replica_links_down_before_run(const Scenario& scenario);

}  // namespace redlock_sim
