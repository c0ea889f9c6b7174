// The checkers defined in docs/catalogue.md ("Verdicts"), as pure functions of a run's history,
// the resource's log and the processes' clocks.
//
// MX, mutual exclusion: violated iff two clients' hold intervals for the same lock overlap in true
// time. A hold interval runs from the grant until the holder's own clock reaches its validity
// deadline, or until it releases, learns the lock is lost (a failed extension included), or
// crashes, whichever is first. A successful extension moves the deadline and continues the same
// hold, even when the holder learns of it after the previous deadline passed: it cannot tell, and
// its critical section goes on (S21b: the other client's grant in the gap overlaps it).
// RS, resource safety: violated iff a write issued under an older grant is applied after a write
// under a newer grant (stale write), or the final value is lower than the number of increments
// acknowledged (lost update).
// LV, liveness: violated iff an acquisition call gave up while nobody held the lock at any time
// during it and no crashed holder's keys were waiting out their TTL (livelock), or a client wanted
// the lock for longer than the bound while nobody held it (unavailability; the bound is the
// scenario's, unset means not checked).
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "sim/checkers/history.hpp"
#include "sim/resource/resource.hpp"

namespace redlock_sim {

enum class Verdict : uint8_t { holds, violated, not_checked };
const char* verdict_name(Verdict verdict);

// The checkers' names, in the order reports list them: "mutual_exclusion", "resource_safety",
// "liveness" (the names of Violation::checker, expectations, findings and the JSON verdicts).
const std::vector<std::string>& checker_names();

struct Violation {
  std::string checker;  // mutual_exclusion | resource_safety | liveness
  std::string kind;     // overlap | stale_write | lost_update | livelock | unavailability
  std::vector<ProcessId> clients;
  std::vector<uint64_t> grants;
  Instant start;  // the violating interval in true time (overlap, window, or the instant)
  Instant end;
  std::string description;
};

// When does `client`'s `kind` clock first read `local` at or after true time `from`.
using ClockReach =
    std::function<Instant(ProcessId client, ClockKind kind, Instant local, Instant from)>;

std::vector<HoldInterval> hold_intervals(const History& history, const ClockReach& reach);

// What a crashed holder leaves behind: from its crash until its validity deadline would have
// passed on its clock, its keys still refuse everyone (S24's TTL wait). Grants with no deadline
// (TTL-only, watchdog) leave no window: how long their keys outlive them is not in the history.
std::vector<HoldInterval> crashed_holder_waits(const History& history, const ClockReach& reach);

struct MutualExclusionResult {
  Verdict verdict = Verdict::holds;
  std::vector<Violation> violations;  // every overlapping pair, earliest first
};
MutualExclusionResult check_mutual_exclusion(const std::vector<HoldInterval>& holds);

struct ResourceSafetyResult {
  Verdict verdict = Verdict::not_checked;
  std::vector<Violation> violations;
  uint64_t increments_acknowledged = 0;
  int64_t final_value = 0;
  uint64_t stale_operations_rejected = 0;
};
ResourceSafetyResult check_resource_safety(const History& history,
                                           const std::vector<ResourceOp>& log,
                                           const std::string& resource, int64_t final_value);

struct LivenessResult {
  Verdict verdict = Verdict::holds;
  std::vector<Violation> violations;
  std::optional<Duration> longest_unavailability;  // wanted by someone, held by nobody
  std::optional<Duration> longest_time_to_acquire;
};
// A call that gave up during a crashed holder's wait (crashed_waits) is that wait, not a
// livelock; it still counts in the unavailability.
LivenessResult check_liveness(const History& history, const std::vector<HoldInterval>& holds,
                              Instant run_end, std::optional<Duration> unavailability_max,
                              const std::vector<HoldInterval>& crashed_waits = {});

}  // namespace redlock_sim
