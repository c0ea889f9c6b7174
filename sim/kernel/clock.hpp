// A process's clocks as exact functions of true time.
//
// One oscillator per process drives both clocks. The monotonic clock is piecewise linear in true
// time with integer-ratio rates and never steps:
//     monotonic(t) = m_i + floor((t - t_i) * num_i / den_i)   for the segment i containing t.
// The wall clock is the monotonic clock plus an offset that changes only by steps:
//     wall(t) = monotonic(t) + offset(t).
// So "wall = offset + rate + steps" holds exactly, and the two clocks differ only by steps. A
// rate change (oscillator drift, or NTP slewing, which Linux also applies to CLOCK_MONOTONIC)
// starts a new segment at the instant it happens. Changes are applied in true-time order; the
// full history is kept so checkers can ask what a clock read at any past instant and when it
// first reached a value.
#pragma once

#include <algorithm>
#include <cstdint>
#include <optional>
#include <vector>

#include "lock_impls/port/time.hpp"

namespace redlock_sim {

// An exact clock rate: local nanoseconds per true nanosecond = numerator / denominator.
struct Rate {
  int64_t numerator = 1;
  int64_t denominator = 1;
  static constexpr Rate one() { return {1, 1}; }
  // Parts per million faster (positive) or slower (negative) than true time.
  static Rate ppm(int64_t parts_per_million);
  Rate times(Rate other) const;  // reduced by gcd
  friend bool operator==(const Rate&, const Rate&) = default;
};

class ProcessClock {
 public:
  struct Options {
    Instant true_start = Instant::zero();
    Instant wall_at_start = Instant::zero();
    Instant monotonic_at_start = Instant::zero();
    Rate rate = Rate::one();
  };
  ProcessClock() : ProcessClock(Options{}) {}
  explicit ProcessClock(const Options& options);

  // Inline for the common case (a query at or after the last change, on a rate-one segment):
  // every timer reads the clock when it starts and when it fires.
  Instant monotonic_at(Instant true_time) const {
    const RateSegment& last = segments_.back();
    if (true_time >= last.true_start && last.rate.numerator == last.rate.denominator) {
      return last.monotonic_start + Duration::from_ns(true_time.ns() - last.true_start.ns());
    }
    return segment_value(segments_[segment_index(true_time)], true_time);
  }
  // Inline for the same common case, also at or after the last wall step: every Redis command
  // and lock deadline reads the wall clock.
  Instant wall_at(Instant true_time) const {
    const RateSegment& last = segments_.back();
    const OffsetChange& offset = offsets_.back();
    if (true_time >= last.true_start && true_time >= offset.true_time &&
        last.rate.numerator == last.rate.denominator) {
      return last.monotonic_start + Duration::from_ns(true_time.ns() - last.true_start.ns()) +
             offset.offset;
    }
    return wall_at_otherwise(true_time);
  }
  Instant read(ClockKind kind, Instant true_time) const {
    return kind == ClockKind::wall ? wall_at(true_time) : monotonic_at(true_time);
  }
  Rate rate_at(Instant true_time) const;
  Duration wall_offset_at(Instant true_time) const;  // wall minus monotonic

  // Changes at true time `at`, which must not precede the last change.
  // The oscillator's rate (drift), kept when a slew starts or ends.
  void set_rate(Instant at, Rate rate);
  // A slew (NTP's adjtime) multiplies the oscillator's rate by `factor` until cleared with
  // Rate::one(). Both clocks are slewed, as Linux slews CLOCK_MONOTONIC; neither steps.
  void set_slew(Instant at, Rate factor);
  void step_wall(Instant at, Duration delta);  // forward (positive) or backward (negative)
  // Steps the wall clock so that it reads true time plus `offset` at `at`.
  void set_wall_offset_from_true(Instant at, Duration offset);

  // The first true time t >= from at which the clock reads >= `local`, since rates are positive
  // and there are no future changes; Instant::max() when that is past the last representable
  // instant (a very slow clock), i.e. never within any run.
  Instant first_true_time_reaching(ClockKind kind, Instant local, Instant from) const {
    // Every timer asks from now, which nearly always lies past the last change, on a rate-one
    // clock: the instant the reading is reached, or `from` when it already is (as solve()
    // computes it). Inline, as it runs once per timer.
    // (A monotonic deadline does not depend on the wall offset: no need to look at its steps.)
    const RateSegment& last = segments_.back();
    if (from >= last.true_start &&
        (kind == ClockKind::monotonic || from >= offsets_.back().true_time) &&
        last.rate.numerator == last.rate.denominator) {
      const Instant target =
          kind == ClockKind::wall ? local - offsets_.back().offset : local - Duration::zero();
      const Instant candidate = last.true_start + (target - last.monotonic_start);
      return candidate == Instant::max() ? Instant::max() : std::max(candidate, from);
    }
    return first_true_time_reaching_otherwise(kind, local, from);
  }

  // Whether the clock runs at rate one from the start of its last rate segment, `true_time` at
  // or after that start (wall steps start no segment: a monotonic reading ignores them): then
  // monotonic_at(t) is monotonic_on_last(t), and the first true time at which the monotonic
  // reading monotonic_on_last(t) + d is reached (d >= 0) is t + d.
  bool steady_at(Instant true_time) const {
    const RateSegment& last = segments_.back();
    return true_time >= last.true_start && last.rate.numerator == last.rate.denominator;
  }
  Instant monotonic_on_last(Instant true_time) const {
    const RateSegment& last = segments_.back();
    return last.monotonic_start + Duration::from_ns(true_time.ns() - last.true_start.ns());
  }

  Instant last_change() const { return last_change_; }

 private:
  struct RateSegment {
    Instant true_start;
    Instant monotonic_start;
    Rate rate;
  };
  struct OffsetChange {
    Instant true_time;
    Duration offset;  // wall - monotonic from true_time on
  };
  // Nearly every query is about now or later, which the last segment and the last offset
  // cover: those are answered without a search (a third of the kernel's time went to it).
  std::size_t segment_index(Instant true_time) const {
    return true_time >= segments_.back().true_start ? segments_.size() - 1
                                                    : segment_index_before_last(true_time);
  }
  std::size_t offset_index(Instant true_time) const {
    return true_time >= offsets_.back().true_time ? offsets_.size() - 1
                                                  : offset_index_before_last(true_time);
  }
  Instant first_true_time_reaching_otherwise(ClockKind kind, Instant local, Instant from) const;
  Instant wall_at_otherwise(Instant true_time) const;
  std::size_t segment_index_before_last(Instant true_time) const;
  std::size_t offset_index_before_last(Instant true_time) const;
  static Instant segment_value(const RateSegment& segment, Instant true_time);
  // First t in [from, until) with value(t) >= target in one segment; nullopt if none.
  static std::optional<Instant> solve(const RateSegment& segment, Instant target, Instant from,
                                      Instant until);
  void note_change(Instant at);
  void start_segment(Instant at);

  Rate oscillator_rate_;
  Rate slew_factor_ = Rate::one();
  std::vector<RateSegment> segments_;
  std::vector<OffsetChange> offsets_;
  Instant last_change_;
};

}  // namespace redlock_sim
