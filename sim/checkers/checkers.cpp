#include "sim/checkers/checkers.hpp"

#include <algorithm>
#include <map>
#include <tuple>

namespace redlock_sim {

const std::vector<std::string>& checker_names() {
  static const std::vector<std::string> names = {"mutual_exclusion", "resource_safety", "liveness"};
  return names;
}

const char* verdict_name(Verdict verdict) {
  switch (verdict) {
    case Verdict::holds:
      return "holds";
    case Verdict::violated:
      return "violated";
    case Verdict::not_checked:
      return "not_checked";
  }
  return "unknown";
}

namespace {

std::string ms_text(Instant t) {
  return std::to_string(t.ms_floor());
}
std::string ms_text(Duration d) {
  return std::to_string(d.ms_floor());
}

// The hold interval of one grant: from the grant to the deadline of the last successful
// extension (or the grant's own), cut at the grant's end. An extension learned after the previous
// deadline passed continues the same hold: the holder cannot tell, and its critical section goes
// on (a resurrecting extend must not hide the other client's grant in the gap).
void grant_intervals(const GrantRecord& grant, const ClockReach& reach,
                     std::vector<HoldInterval>& out) {
  if (grant.deadlines.empty()) return;
  const GrantRecord::Deadline& last = grant.deadlines.back();
  // A lock with no computed deadline (TTL-only, watchdog) is believed held until it ends.
  Instant end = last.local == Instant::max() ? Instant::max()
                                             : reach(grant.client, grant.clock, last.local,
                                                     std::max(grant.granted_at, last.learned_at));
  if (grant.ended_at) end = std::min(end, *grant.ended_at);
  if (end <= grant.granted_at) return;
  out.push_back(HoldInterval{.grant_id = grant.grant_id,
                             .client = grant.client,
                             .lock = grant.lock,
                             .start = grant.granted_at,
                             .end = end});
}

}  // namespace

std::vector<HoldInterval> hold_intervals(const History& history, const ClockReach& reach) {
  std::vector<HoldInterval> out;
  for (const GrantRecord& grant : history.grants())
    grant_intervals(grant, reach, out);
  const auto before = [](const HoldInterval& a, const HoldInterval& b) {
    return std::tie(a.lock, a.start, a.grant_id) < std::tie(b.lock, b.start, b.grant_id);
  };
  // Grants are recorded as they happen, so the holds of a run with one lock usually come in
  // order already: checking that is one pass, sorting them again is not. (Each hold has its own
  // grant id, so no two compare equal and the sorted order is the one order either way.)
  if (!std::is_sorted(out.begin(), out.end(), before)) std::sort(out.begin(), out.end(), before);
  return out;
}

std::vector<HoldInterval> crashed_holder_waits(const History& history, const ClockReach& reach) {
  std::vector<HoldInterval> out;
  for (const GrantRecord& grant : history.grants()) {
    if (!grant.ended_at || grant.end_reason != "crashed" || grant.deadlines.empty()) continue;
    const GrantRecord::Deadline& last = grant.deadlines.back();
    if (last.local == Instant::max()) continue;
    const Instant end =
        reach(grant.client, grant.clock, last.local, std::max(grant.granted_at, last.learned_at));
    if (end <= *grant.ended_at) continue;
    out.push_back(HoldInterval{.grant_id = grant.grant_id,
                               .client = grant.client,
                               .lock = grant.lock,
                               .start = *grant.ended_at,
                               .end = end});
  }
  return out;
}

MutualExclusionResult check_mutual_exclusion(const std::vector<HoldInterval>& holds) {
  MutualExclusionResult result;
  // Sweep per lock in start order, keeping the intervals that have not ended yet.
  std::vector<const HoldInterval*> active;
  const std::string* lock = nullptr;
  for (const HoldInterval& hold : holds) {
    if (lock == nullptr || *lock != hold.lock) {
      active.clear();
      lock = &hold.lock;
    }
    std::erase_if(active, [&](const HoldInterval* a) { return a->end <= hold.start; });
    for (const HoldInterval* other : active) {
      if (other->client == hold.client) continue;
      const Instant overlap_end = std::min(other->end, hold.end);
      result.violations.push_back(
          Violation{.checker = "mutual_exclusion",
                    .kind = "overlap",
                    .clients = {other->client, hold.client},
                    .grants = {other->grant_id, hold.grant_id},
                    .start = hold.start,
                    .end = overlap_end,
                    .description = "grants " + std::to_string(other->grant_id) + " and " +
                                   std::to_string(hold.grant_id) + " of lock '" + hold.lock +
                                   "' both held during [" + ms_text(hold.start) + ", " +
                                   ms_text(overlap_end) + ") ms, " +
                                   ms_text(overlap_end - hold.start) + " ms"});
    }
    active.push_back(&hold);
  }
  std::stable_sort(result.violations.begin(), result.violations.end(),
                   [](const Violation& a, const Violation& b) { return a.start < b.start; });
  result.verdict = result.violations.empty() ? Verdict::holds : Verdict::violated;
  return result;
}

ResourceSafetyResult check_resource_safety(const History& history,
                                           const std::vector<ResourceOp>& log,
                                           const std::string& resource, int64_t final_value) {
  ResourceSafetyResult result;
  result.verdict = Verdict::holds;
  result.final_value = final_value;
  const auto grant_order = [&](uint64_t grant_id) {
    const GrantRecord& g = history.grants().at(grant_id - 1);
    return std::make_pair(g.granted_at, g.grant_id);
  };
  std::optional<std::pair<Instant, uint64_t>> newest;
  uint64_t newest_grant = 0;
  for (const ResourceOp& op : log) {
    if (op.resource != resource) continue;
    if (!op.accepted) {
      ++result.stale_operations_rejected;
      continue;
    }
    const bool is_write =
        op.kind == ResourceOpKind::write || op.kind == ResourceOpKind::write_if_owner;
    if (!is_write || op.grant_id == 0 || op.grant_id > history.grants().size()) continue;
    const auto order = grant_order(op.grant_id);
    if (newest && order < *newest) {
      result.violations.push_back(Violation{
          .checker = "resource_safety",
          .kind = "stale_write",
          .clients = {op.client},
          .grants = {op.grant_id, newest_grant},
          .start = op.applied_at,
          .end = op.applied_at,
          .description = "write of " + std::to_string(op.value) + " under grant " +
                         std::to_string(op.grant_id) + " applied at " + ms_text(op.applied_at) +
                         " ms, after a write under the newer grant " +
                         std::to_string(newest_grant)});
    } else {
      newest = order;
      newest_grant = op.grant_id;
    }
  }
  // Only increments made under a grant count: a write outside any critical section is the
  // workload's mistake, not the lock's.
  for (const WriteAck& ack : history.write_acks()) {
    if (ack.grant_id != 0) ++result.increments_acknowledged;
  }
  if (final_value < static_cast<int64_t>(result.increments_acknowledged)) {
    // The loss happened somewhere between the first and the last acknowledged increment.
    Instant first = Instant::max();
    Instant last = Instant::zero();
    for (const WriteAck& ack : history.write_acks()) {
      if (ack.grant_id == 0) continue;
      first = std::min(first, ack.acknowledged_at);
      last = std::max(last, ack.acknowledged_at);
    }
    result.violations.push_back(
        Violation{.checker = "resource_safety",
                  .kind = "lost_update",
                  .start = first,
                  .end = last,
                  .description = "final value " + std::to_string(final_value) + " < " +
                                 std::to_string(result.increments_acknowledged) +
                                 " increments acknowledged"});
  }
  if (!result.violations.empty()) result.verdict = Verdict::violated;
  return result;
}

namespace {
using Window = std::pair<Instant, Instant>;

std::vector<Window> merged(std::vector<Window> windows) {
  std::sort(windows.begin(), windows.end());
  std::vector<Window> out;
  for (const Window& w : windows) {
    if (!out.empty() && w.first <= out.back().second) {
      out.back().second = std::max(out.back().second, w.second);
    } else {
      out.push_back(w);
    }
  }
  return out;
}

// `held` is merged: sorted, and each window starts after the one before ends, so the ends are in
// order too. The only window that can overlap [start, end) is the first that ends after start.
bool overlaps_any(const std::vector<Window>& held, Instant start, Instant end) {
  const auto first_ending_after = std::partition_point(
      held.begin(), held.end(), [start](const Window& w) { return w.second <= start; });
  return first_ending_after != held.end() && first_ending_after->first < end;
}
}  // namespace

LivenessResult check_liveness(const History& history, const std::vector<HoldInterval>& holds,
                              Instant run_end, std::optional<Duration> unavailability_max,
                              const std::vector<HoldInterval>& crashed_waits) {
  LivenessResult result;
  std::map<std::string, std::vector<Window>> held;
  for (const HoldInterval& h : holds)
    held[h.lock].emplace_back(h.start, h.end);
  for (auto& [lock, windows] : held)
    windows = merged(std::move(windows));
  std::map<std::string, std::vector<Window>> waiting;
  for (const HoldInterval& w : crashed_waits)
    waiting[w.lock].emplace_back(w.start, w.end);
  for (auto& [lock, windows] : waiting)
    windows = merged(std::move(windows));
  std::map<std::string, std::vector<Window>> wanted;
  for (const AcquireCall& call : history.acquires()) {
    const Instant end = call.ended.value_or(run_end);
    wanted[call.lock].emplace_back(call.started, end);
    if (call.succeeded) {
      const Duration took = end - call.started;
      if (!result.longest_time_to_acquire || took > *result.longest_time_to_acquire) {
        result.longest_time_to_acquire = took;
      }
    } else if (call.ended && !call.interrupted && call.attempts != 1 &&
               !overlaps_any(held[call.lock], call.started, end) &&
               !overlaps_any(waiting[call.lock], call.started, end)) {
      // A livelock is repeated attempts that all failed while nobody held the lock (S23a's
      // split votes); one try refused in the safety margin (S03a) is the price of safety, and
      // tries refused by a crashed holder's keys are its TTL wait (S24).
      result.violations.push_back(
          Violation{.checker = "liveness",
                    .kind = "livelock",
                    .clients = {call.client},
                    .start = call.started,
                    .end = end,
                    .description = "acquisition of '" + call.lock + "' gave up after " +
                                   ms_text(end - call.started) + " ms while nobody held the lock"});
    }
  }
  // One stretch in which the lock was wanted and held by nobody.
  auto gap = [&](const std::string& lock, Instant from, Instant to) {
    const Duration length = to - from;
    if (!result.longest_unavailability || length > *result.longest_unavailability) {
      result.longest_unavailability = length;
    }
    if (unavailability_max && length > *unavailability_max) {
      result.violations.push_back(Violation{
          .checker = "liveness",
          .kind = "unavailability",
          .start = from,
          .end = to,
          .description =
              "lock '" + lock + "' wanted but held by nobody for " + ms_text(length) + " ms"});
    }
  };
  // Both lists are merged (sorted, apart), so one pass over each: the holds that end by a wanted
  // window's start end by the next one's too, and those that overlap a window are consecutive.
  // (A loop over every hold for every window made a 1000-second run's check quadratic.)
  for (auto& [lock, windows] : wanted) {
    const std::vector<Window>& busy = held[lock];
    std::size_t first_open = 0;  // the first hold that ends after the current window starts
    for (const Window& want : merged(windows)) {
      while (first_open < busy.size() && busy[first_open].second <= want.first)
        ++first_open;
      // The parts of `want` not covered by any hold.
      Instant cursor = want.first;
      for (std::size_t h = first_open; h < busy.size() && busy[h].first < want.second; ++h) {
        if (busy[h].first > cursor) gap(lock, cursor, busy[h].first);
        cursor = busy[h].second;
      }
      if (cursor < want.second) gap(lock, cursor, want.second);
    }
  }
  result.verdict = result.violations.empty() ? Verdict::holds : Verdict::violated;
  return result;
}

}  // namespace redlock_sim
