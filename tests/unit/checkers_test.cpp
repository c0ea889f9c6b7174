// The checkers on hand-built histories: hold intervals from deadlines on the holder's clock,
// overlaps, stale writes, lost updates, livelock and unavailability.
#include <gtest/gtest.h>

#include "sim/checkers/checkers.hpp"
#include "sim/kernel/clock.hpp"

namespace redlock_sim {
namespace {

Instant ms(int64_t v) {
  return Instant::from_ms(v);
}

// Every client's clock runs at rate one from zero, except client 7 at 49/50 (S04b).
Instant reach(ProcessId client, ClockKind kind, Instant local, Instant from) {
  ProcessClock clock(ProcessClock::Options{.rate = client == 7 ? Rate{49, 50} : Rate::one()});
  return clock.first_true_time_reaching(kind, local, from);
}

GrantRecord grant(ProcessId client, int64_t at_ms, int64_t deadline_ms) {
  return GrantRecord{.client = client,
                     .lock = "lock",
                     .granted_at = ms(at_ms),
                     .deadlines = {{ms(at_ms), ms(deadline_ms)}}};
}

// S01's numbers: H_A = [50, 9898), H_B = [2050, 11898) overlap in [2050, 9898).
TEST(Checkers, OverlapOfTwoClientsIsAnMxViolation) {
  History history;
  history.add_grant(grant(1, 50, 9898));
  history.add_grant(grant(2, 2050, 11898));
  const auto holds = hold_intervals(history, reach);
  const auto mx = check_mutual_exclusion(holds);
  ASSERT_EQ(mx.verdict, Verdict::violated);
  ASSERT_EQ(mx.violations.size(), 1u);
  EXPECT_EQ(mx.violations[0].start, ms(2050));
  EXPECT_EQ(mx.violations[0].end, ms(9898));
}

// Holds come sorted by lock name, then start, then grant id, whatever order the grants were
// recorded in (two locks interleaved; a grant recorded after a later-starting one).
TEST(Checkers, HoldsAreSortedByLockThenStart) {
  History history;
  GrantRecord b1 = grant(1, 10, 100);
  b1.lock = "b";
  GrantRecord a1 = grant(2, 20, 100);
  a1.lock = "a";
  GrantRecord a0 = grant(3, 5, 100);
  a0.lock = "a";
  history.add_grant(b1);
  history.add_grant(a1);
  history.add_grant(a0);
  history.add_grant(grant(4, 30, 100));  // "lock"
  const auto holds = hold_intervals(history, reach);
  std::vector<std::pair<std::string, int64_t>> order;
  for (const HoldInterval& hold : holds)
    order.emplace_back(hold.lock, hold.start.ms_floor());
  EXPECT_EQ(order, (std::vector<std::pair<std::string, int64_t>>{
                       {"a", 5}, {"a", 20}, {"b", 10}, {"lock", 30}}));
}

// Back-to-back holds, and overlapping holds of one client, are not violations.
TEST(Checkers, AdjacentAndSameClientHoldsAreFine) {
  History history;
  history.add_grant(grant(1, 0, 100));
  history.add_grant(grant(2, 100, 200));
  history.add_grant(grant(2, 150, 300));
  EXPECT_EQ(check_mutual_exclusion(hold_intervals(history, reach)).verdict, Verdict::holds);
}

// S04b: a slow client clock (49/50) stretches the hold to true 10100 ms.
TEST(Checkers, HoldEndsWhenTheHoldersOwnClockSaysSo) {
  History history;
  history.add_grant(grant(7, 52, 9898));
  const auto holds = hold_intervals(history, reach);
  ASSERT_EQ(holds.size(), 1u);
  EXPECT_EQ(holds[0].end, ms(10100));
}

// A release truncates the hold; an extension learned in time moves the end; an extension
// learned after the previous deadline passed continues the same hold from the grant (S21b's
// resurrecting extend: the holder cannot tell its lock lapsed, and the gap is part of its hold).
TEST(Checkers, ReleaseAndExtensionsShapeTheHold) {
  History history;
  const uint64_t released = history.add_grant(grant(1, 0, 1000));
  history.grant(released).ended_at = ms(400);
  const uint64_t extended = history.add_grant(grant(2, 0, 1000));
  history.grant(extended).deadlines.push_back({ms(900), ms(1900)});
  const uint64_t resurrected = history.add_grant(grant(3, 0, 1000));
  history.grant(resurrected).deadlines.push_back({ms(1500), ms(2500)});
  auto holds = hold_intervals(history, reach);
  ASSERT_EQ(holds.size(), 3u);
  EXPECT_EQ(holds[0].end, ms(400));
  EXPECT_EQ(holds[1].end, ms(1900));
  EXPECT_EQ(holds[2].grant_id, resurrected);
  EXPECT_EQ(holds[2].start, ms(0));
  EXPECT_EQ(holds[2].end, ms(2500));
}

// A grant resurrected after its deadline overlaps another client's grant made in the gap, even
// when that grant ended before the resurrection was learned.
TEST(Checkers, GrantInTheGapOfALateExtensionOverlaps) {
  History history;
  const uint64_t first = history.add_grant(grant(1, 0, 1000));
  history.grant(first).deadlines.push_back({ms(1500), ms(2500)});
  const uint64_t second = history.add_grant(grant(2, 1100, 2100));
  history.grant(second).ended_at = ms(1300);
  const MutualExclusionResult mx = check_mutual_exclusion(hold_intervals(history, reach));
  ASSERT_EQ(mx.verdict, Verdict::violated);
  EXPECT_EQ(mx.violations.at(0).start, ms(1100));
  EXPECT_EQ(mx.violations.at(0).end, ms(1300));
}

// An unbounded deadline (a TTL-only lock) is held until it ends.
TEST(Checkers, UnboundedDeadlineHoldsUntilEnd) {
  History history;
  const uint64_t id = history.add_grant(grant(1, 0, 0));
  history.grant(id).deadlines.front().local = Instant::max();
  history.grant(id).ended_at = ms(5000);
  const auto holds = hold_intervals(history, reach);
  ASSERT_EQ(holds.size(), 1u);
  EXPECT_EQ(holds[0].end, ms(5000));
}

ResourceOp write_op(int64_t at, ProcessId client, uint64_t grant_id, int64_t value) {
  return ResourceOp{.applied_at = ms(at),
                    .client = client,
                    .grant_id = grant_id,
                    .kind = ResourceOpKind::write,
                    .resource = "r",
                    .value = value};
}

// S06 without fencing: A's write (older grant) lands after B's: stale write and lost update.
TEST(Checkers, StaleWriteAndLostUpdate) {
  History history;
  const uint64_t a = history.add_grant(grant(1, 2, 9898));
  const uint64_t b = history.add_grant(grant(2, 10102, 19998));
  history.add_write_ack({b, 2, ms(10121)});
  history.add_write_ack({a, 1, ms(15002)});
  const std::vector<ResourceOp> log = {write_op(10120, 2, b, 1), write_op(15001, 1, a, 1)};
  const auto rs = check_resource_safety(history, log, "r", 1);
  EXPECT_EQ(rs.verdict, Verdict::violated);
  ASSERT_EQ(rs.violations.size(), 2u);
  EXPECT_EQ(rs.violations[0].kind, "stale_write");
  EXPECT_EQ(rs.violations[1].kind, "lost_update");
}

// S06 with fencing: the stale write is rejected, nothing is lost.
TEST(Checkers, RejectedStaleWriteIsSafe) {
  History history;
  const uint64_t a = history.add_grant(grant(1, 2, 9898));
  const uint64_t b = history.add_grant(grant(2, 10102, 19998));
  history.add_write_ack({b, 2, ms(10121)});
  ResourceOp stale = write_op(15001, 1, a, 1);
  stale.accepted = false;
  const auto rs = check_resource_safety(history, {write_op(10120, 2, b, 1), stale}, "r", 1);
  EXPECT_EQ(rs.verdict, Verdict::holds);
  EXPECT_EQ(rs.stale_operations_rejected, 1u);
}

// S23a: three clients give up while nobody ever held the lock: livelock.
TEST(Checkers, GivingUpWhileNobodyHoldsIsLivelock) {
  History history;
  for (ProcessId c = 1; c <= 3; ++c) {
    const auto call = history.begin_acquire(c, "lock", ms(0));
    history.end_acquire(call, ms(620), false, 0);
  }
  const auto lv = check_liveness(history, {}, ms(1000), std::nullopt);
  EXPECT_EQ(lv.verdict, Verdict::violated);
  EXPECT_EQ(lv.violations.size(), 3u);
  EXPECT_EQ(lv.violations[0].kind, "livelock");
}

// A client that gives up while a crashed holder's keys wait out their TTL is that wait (S24),
// not a livelock; the same call after the crashed holder's deadline is one.
TEST(Checkers, GivingUpDuringACrashedHoldersWaitIsNotLivelock) {
  History history;
  const uint64_t a = history.add_grant(grant(1, 0, 2000));
  history.grant(a).ended_at = ms(500);
  history.grant(a).end_reason = "crashed";
  const auto during = history.begin_acquire(2, "lock", ms(1000));
  history.end_acquire(during, ms(1600), false, 0, 4);
  const auto waits = crashed_holder_waits(history, reach);
  ASSERT_EQ(waits.size(), 1u);
  EXPECT_EQ(waits[0].start, ms(500));
  EXPECT_EQ(waits[0].end, ms(2000));
  const auto holds = hold_intervals(history, reach);
  EXPECT_EQ(check_liveness(history, holds, ms(5000), std::nullopt, waits).verdict, Verdict::holds);
  const auto after = history.begin_acquire(2, "lock", ms(2100));
  history.end_acquire(after, ms(2700), false, 0, 4);
  const auto lv = check_liveness(history, holds, ms(5000), std::nullopt, waits);
  ASSERT_EQ(lv.violations.size(), 1u);
  EXPECT_EQ(lv.violations[0].start, ms(2100));
}

// S24: the holder crashed; B waits about a TTL. Reported, and a violation only past the bound.
TEST(Checkers, UnavailabilityIsMeasuredAndBounded) {
  History history;
  const uint64_t a = history.add_grant(grant(1, 2, 9898));
  history.grant(a).ended_at = ms(500);
  const auto call = history.begin_acquire(2, "lock", ms(1000));
  const uint64_t b = history.add_grant(grant(2, 10102, 19998));
  history.end_acquire(call, ms(10102), true, b);
  const auto holds = hold_intervals(history, reach);
  const auto unbounded = check_liveness(history, holds, ms(20000), std::nullopt);
  EXPECT_EQ(unbounded.verdict, Verdict::holds);
  EXPECT_EQ(unbounded.longest_unavailability, Duration::from_ms(9102));
  const auto bounded = check_liveness(history, holds, ms(20000), Duration::from_ms(5000));
  EXPECT_EQ(bounded.verdict, Verdict::violated);
  EXPECT_EQ(bounded.violations[0].kind, "unavailability");
}

}  // namespace
}  // namespace redlock_sim
