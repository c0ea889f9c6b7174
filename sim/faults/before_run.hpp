// Faults that began before the run, in one place for the parser, the runner, the real harness,
// the shrinker and explore: which kinds may start before time zero, and what such a start leaves
// behind at time zero. A negative `at_ms` is applied at time zero; only its effect on state that
// remembers a start (a replica's "link down since") sees the earlier time.
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include "sim/scenario/scenario.hpp"

namespace redlock_sim {

// Whether a fault of this kind may have `at_ms < 0`. Only a partition: it leaves a state with a
// start that Redis reports (a replica's master_link_down_since_seconds), which Sentinel's
// eligibility reads. A clock change, pause, held message or stop before the run is not a state
// the run could tell from one that began at zero (or, for a stop, that the model keeps), so the
// parser refuses it.
bool may_start_before_run(FaultKind kind);

// Each replica whose link to its configured master is cut by a partition that began before the
// run (the replica on one side and its master on the other, one-way in either direction, and not
// healed before time zero), with that partition's start in ms (negative; the earliest if several).
std::map<std::string, int64_t> replica_links_down_before_run(const Scenario& scenario);

}  // namespace redlock_sim
