// Clocks against the catalogue's conventions (docs/catalogue.md, F2, S03 and S04).
#include <gtest/gtest.h>

#include "sim/kernel/clock.hpp"

namespace redlock_sim {
namespace {

Instant ms(int64_t v) {
  return Instant::from_ms(v);
}

// S03a: a node clock at rate 200/199 with clk(1 ms) = 1 ms passes when = 10001 first at t = 9952.
TEST(Clock, FastNodeClockReachesExpiryWhereTheCatalogueSays) {
  ProcessClock clock(ProcessClock::Options{.rate = Rate{200, 199}});
  EXPECT_EQ(clock.monotonic_at(ms(1)).ms_floor(), 1);
  // The key is expired once clk > 10001, i.e. clk >= 10002 ms.
  const Instant expired = clock.first_true_time_reaching(ClockKind::monotonic, ms(10002), ms(0));
  EXPECT_EQ(Duration::floor_div(expired.ns() + 999'999, 1'000'000), 9952);
  EXPECT_LT(clock.monotonic_at(ms(9951)).ms_floor(), 10002);
  EXPECT_GE(clock.monotonic_at(ms(9952)).ms_floor(), 10002);
}

// S04b: a client clock at rate 49/50 reads local 9898 ms first at true 10100 ms.
TEST(Clock, SlowClientClockEndsItsHoldLate) {
  ProcessClock clock(ProcessClock::Options{.rate = Rate{49, 50}});
  EXPECT_EQ(clock.first_true_time_reaching(ClockKind::monotonic, ms(9898), ms(0)), ms(10100));
  // S04a: at 199/200 the same local instant is reached at about 9948 ms.
  ProcessClock slightly(ProcessClock::Options{.rate = Rate{199, 200}});
  const Instant end = slightly.first_true_time_reaching(ClockKind::monotonic, ms(9898), ms(0));
  EXPECT_EQ(Duration::floor_div(end.ns() + 999'999, 1'000'000), 9948);
}

// A clock at rate 1/10^9 reaches 30 local seconds only after 3*10^19 ns, past int64: the
// deadline never comes (Instant::max), where it used to fail an assertion.
TEST(Clock, DeadlinePastTheLastInstantNeverComes) {
  ProcessClock clock(ProcessClock::Options{.rate = Rate{1, 1'000'000'000}});
  EXPECT_EQ(clock.first_true_time_reaching(ClockKind::monotonic, ms(30'000), ms(0)),
            Instant::max());
  EXPECT_EQ(clock.first_true_time_reaching(ClockKind::wall, ms(30'000), ms(5)), Instant::max());
  EXPECT_EQ(clock.first_true_time_reaching(ClockKind::monotonic, ms(1), ms(0)), ms(1'000'000'000));
}

// A wall step moves the wall clock only; a backward step makes it read earlier values again.
TEST(Clock, WallStepsLeaveMonotonicAlone) {
  ProcessClock clock(ProcessClock::Options{.wall_at_start = ms(1000)});
  clock.step_wall(ms(100), Duration::from_ms(-50));
  EXPECT_EQ(clock.wall_at(ms(99)), ms(1099));
  EXPECT_EQ(clock.wall_at(ms(100)), ms(1050));
  EXPECT_EQ(clock.monotonic_at(ms(100)), ms(100));
  // After the backward step, 1080 is first read again at 130 (it was read at 80 before).
  EXPECT_EQ(clock.first_true_time_reaching(ClockKind::wall, ms(1080), ms(100)), ms(130));
  EXPECT_EQ(clock.first_true_time_reaching(ClockKind::wall, ms(1080), ms(0)), ms(80));
}

// Setting the offset from true time is a step of the difference.
TEST(Clock, SetOffsetFromTrue) {
  ProcessClock clock;
  clock.set_wall_offset_from_true(ms(10), Duration::from_ms(10'000));
  EXPECT_EQ(clock.wall_at(ms(20)), ms(10'020));
}

// A slew changes both clocks' rate until cleared, and never steps either.
TEST(Clock, SlewChangesRateOfBothClocks) {
  ProcessClock clock;
  clock.set_slew(ms(0), Rate::ppm(500));
  EXPECT_EQ(clock.monotonic_at(ms(1000)), ms(1000) + Duration::from_us(500));
  EXPECT_EQ(clock.wall_at(ms(1000)) - clock.monotonic_at(ms(1000)), Duration::zero());
  clock.set_slew(ms(1000), Rate::one());
  EXPECT_EQ(clock.monotonic_at(ms(2000)), ms(2000) + Duration::from_us(500));
}

// A skewed clock's readings and deadlines are exact on both sides of the elapsed time whose
// product with the rate passes 64 bits (divided in 64 bits below it, in 128 above): each equals
// the floor (reading) or ceiling (deadline) computed in 128 bits, both signs of elapsed time.
TEST(Clock, SkewedReadingsAndDeadlinesExactOnBothSidesOfThe64BitProduct) {
  const Rate rate{1'000'001, 1'000'000};
  const auto floor_div = [](__int128 a, __int128 b) {
    __int128 q = a / b;
    if (a % b != 0 && a < 0) --q;
    return static_cast<int64_t>(q);
  };
  const auto ceil_div = [](__int128 a, __int128 b) {
    __int128 q = a / b;
    if (a % b != 0 && a > 0) ++q;
    return static_cast<int64_t>(q);
  };
  // The clock starts at true 2^62 ns: earlier instants give a negative elapsed time.
  const int64_t start_ns = int64_t{1} << 62;
  ProcessClock clock(ProcessClock::Options{.true_start = Instant::from_ns(start_ns), .rate = rate});
  const int64_t reading_edge = INT64_MAX / rate.numerator;  // largest elapsed that fits
  for (const int64_t edge : {reading_edge, -reading_edge}) {
    for (int64_t elapsed = edge - 3; elapsed <= edge + 3; ++elapsed) {
      if (start_ns + elapsed < 0) continue;
      const Instant at = Instant::from_ns(start_ns + elapsed);
      EXPECT_EQ(clock.monotonic_at(at).ns(),
                floor_div(static_cast<__int128>(elapsed) * rate.numerator, rate.denominator))
          << "elapsed " << elapsed;
    }
  }
  // A deadline `need` local ns after the start: need * denominator passes 64 bits past this.
  const int64_t deadline_edge = INT64_MAX / rate.denominator;
  for (int64_t need = deadline_edge - 3; need <= deadline_edge + 3; ++need) {
    const Instant reached = clock.first_true_time_reaching(
        ClockKind::monotonic, Instant::from_ns(need), Instant::from_ns(start_ns));
    const __int128 expected =
        start_ns + static_cast<__int128>(
                       ceil_div(static_cast<__int128>(need) * rate.denominator, rate.numerator));
    EXPECT_EQ(static_cast<__int128>(reached.ns()), expected) << "need " << need;
    EXPECT_GE(clock.monotonic_at(reached).ns(), need);
    EXPECT_LT(clock.monotonic_at(reached - Duration::from_ns(1)).ns(), need);
  }
  // A rate-one clock beside it reads true time since its start, at the same instants.
  ProcessClock plain(ProcessClock::Options{.true_start = Instant::from_ns(start_ns)});
  EXPECT_EQ(plain.monotonic_at(Instant::from_ns(start_ns + reading_edge)).ns(), reading_edge);
}

// The wall clock reads the monotonic reading plus the wall offset in force, on every side of the
// inline path's edges (a query at or after both the last rate change and the last step, on a
// rate-one segment): before and at a step, on a skewed segment, and on a skewed segment before a
// return to rate one.
TEST(Clock, WallReadsMonotonicPlusOffsetAroundStepsAndRateChanges) {
  ProcessClock clock(ProcessClock::Options{.wall_at_start = ms(1000)});
  clock.step_wall(ms(100), Duration::from_ms(5));
  clock.set_rate(ms(200), Rate{1001, 1000});
  clock.set_rate(ms(300), Rate::one());
  const auto expected = [&clock](Instant at) {
    return clock.monotonic_at(at) + clock.wall_offset_at(at);
  };
  for (const int64_t at_ms : {0, 99, 100, 101, 199, 200, 250, 299, 300, 301, 400}) {
    EXPECT_EQ(clock.wall_at(ms(at_ms)), expected(ms(at_ms))) << at_ms;
  }
  EXPECT_EQ(clock.wall_at(ms(99)), ms(1099));
  EXPECT_EQ(clock.wall_at(ms(100)), ms(1105));
  EXPECT_EQ(clock.wall_at(ms(250)), ms(1255) + Duration::from_us(50));
  EXPECT_EQ(clock.wall_at(ms(299)), ms(1304) + Duration::from_us(99));
  EXPECT_EQ(clock.wall_at(ms(400)), ms(1405) + Duration::from_us(100));
}

// Rates compose exactly and reduce.
TEST(Clock, RatesComposeExactly) {
  EXPECT_EQ(Rate::ppm(500), (Rate{2001, 2000}));
  EXPECT_EQ((Rate{200, 199}).times(Rate{199, 200}), Rate::one());
}

}  // namespace
}  // namespace redlock_sim
