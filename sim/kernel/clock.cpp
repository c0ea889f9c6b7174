#include "sim/kernel/clock.hpp"

#include <algorithm>

#include "sim/kernel/assert.hpp"

namespace redlock_sim {

Rate Rate::ppm(int64_t parts_per_million) {
  SIM_ASSERT(parts_per_million > -1'000'000);
  return Rate{1'000'000 + parts_per_million, 1'000'000}.times(Rate::one());
}

namespace {
__int128 gcd128(__int128 a, __int128 b) {
  while (b != 0) {
    const __int128 r = a % b;
    a = b;
    b = r;
  }
  return a;
}
}  // namespace

Rate Rate::times(Rate other) const {
  __int128 n = static_cast<__int128>(numerator) * other.numerator;
  __int128 d = static_cast<__int128>(denominator) * other.denominator;
  const __int128 g = gcd128(n, d);
  n /= g;
  d /= g;
  SIM_ASSERT(n > 0 && d > 0 && n <= INT64_MAX && d <= INT64_MAX);
  return Rate{static_cast<int64_t>(n), static_cast<int64_t>(d)};
}

ProcessClock::ProcessClock(const Options& options)
    : oscillator_rate_(options.rate), last_change_(options.true_start) {
  SIM_ASSERT(options.rate.numerator > 0 && options.rate.denominator > 0);
  segments_.push_back({options.true_start, options.monotonic_at_start, options.rate});
  offsets_.push_back({options.true_start, options.wall_at_start - options.monotonic_at_start});
}

std::size_t ProcessClock::segment_index_before_last(Instant true_time) const {
  // Last segment starting at or before true_time; queries before the first segment use it.
  auto it = std::upper_bound(
      segments_.begin(), segments_.end(), true_time,
      [](Instant t, const RateSegment& segment) { return t < segment.true_start; });
  return it == segments_.begin() ? 0 : static_cast<std::size_t>(it - segments_.begin()) - 1;
}

std::size_t ProcessClock::offset_index_before_last(Instant true_time) const {
  auto it =
      std::upper_bound(offsets_.begin(), offsets_.end(), true_time,
                       [](Instant t, const OffsetChange& change) { return t < change.true_time; });
  return it == offsets_.begin() ? 0 : static_cast<std::size_t>(it - offsets_.begin()) - 1;
}

Instant ProcessClock::segment_value(const RateSegment& segment, Instant true_time) {
  const int64_t elapsed = true_time.ns() - segment.true_start.ns();
  if (segment.rate.numerator == segment.rate.denominator) {
    return segment.monotonic_start + Duration::from_ns(elapsed);  // the common case: rate one
  }
  // A product that fits in 64 bits is divided in 64 bits: the same integers, so the same
  // quotient, without a call to the 128-bit division. At a parts-per-million rate (a numerator
  // near 10^6) it fits for about 2.5 hours of true time after the segment's start.
  int64_t scaled64;
  if (!__builtin_mul_overflow(elapsed, segment.rate.numerator, &scaled64)) [[likely]] {
    int64_t quotient = scaled64 / segment.rate.denominator;
    if (scaled64 % segment.rate.denominator != 0 && scaled64 < 0) --quotient;
    return segment.monotonic_start + Duration::from_ns(quotient);
  }
  const __int128 scaled = static_cast<__int128>(elapsed) * segment.rate.numerator;
  // Floor division, correct for negative elapsed time as well.
  __int128 quotient = scaled / segment.rate.denominator;
  if (scaled % segment.rate.denominator != 0 && scaled < 0) --quotient;
  return segment.monotonic_start + Duration::from_ns(static_cast<int64_t>(quotient));
}

Instant ProcessClock::wall_at_otherwise(Instant true_time) const {
  return monotonic_at(true_time) + offsets_[offset_index(true_time)].offset;
}

Rate ProcessClock::rate_at(Instant true_time) const {
  return segments_[segment_index(true_time)].rate;
}

Duration ProcessClock::wall_offset_at(Instant true_time) const {
  return offsets_[offset_index(true_time)].offset;
}

void ProcessClock::note_change(Instant at) {
  SIM_ASSERT_LE(last_change_.ns(), at.ns());
  last_change_ = at;
}

void ProcessClock::start_segment(Instant at) {
  note_change(at);
  // The clock register holds whole nanoseconds: the new rate applies from the current reading.
  const Instant value = monotonic_at(at);
  const Rate rate = oscillator_rate_.times(slew_factor_);
  if (segments_.back().true_start == at) {
    segments_.back() = {at, value, rate};
  } else {
    segments_.push_back({at, value, rate});
  }
}

void ProcessClock::set_rate(Instant at, Rate rate) {
  SIM_ASSERT(rate.numerator > 0 && rate.denominator > 0);
  oscillator_rate_ = rate;
  start_segment(at);
}

void ProcessClock::set_slew(Instant at, Rate factor) {
  SIM_ASSERT(factor.numerator > 0 && factor.denominator > 0);
  slew_factor_ = factor;
  start_segment(at);
}

void ProcessClock::step_wall(Instant at, Duration delta) {
  note_change(at);
  const Duration offset = offsets_.back().offset + delta;
  if (offsets_.back().true_time == at) {
    offsets_.back().offset = offset;
  } else {
    offsets_.push_back({at, offset});
  }
}

void ProcessClock::set_wall_offset_from_true(Instant at, Duration offset) {
  const Duration current = wall_at(at) - at;
  step_wall(at, offset - current);
}

std::optional<Instant> ProcessClock::solve(const RateSegment& segment, Instant target, Instant from,
                                           Instant until) {
  if (from >= until) return std::nullopt;
  if (segment_value(segment, from) >= target) return from;
  if (segment.rate.numerator == segment.rate.denominator) {
    const Instant candidate = segment.true_start + (target - segment.monotonic_start);
    if (candidate >= until) return std::nullopt;
    return std::max(candidate, from);
  }
  // value(t) >= target  <=>  (t - ts) * num / den >= target - ms  <=>  t - ts >= ceil(...)
  const int64_t need = target.ns() - segment.monotonic_start.ns();
  __int128 elapsed;
  int64_t scaled64;
  if (!__builtin_mul_overflow(need, segment.rate.denominator, &scaled64)) [[likely]] {
    // Divided in 64 bits when the product fits (as in segment_value): the same ceiling.
    int64_t elapsed64 = scaled64 / segment.rate.numerator;
    if (scaled64 % segment.rate.numerator != 0 && scaled64 > 0) ++elapsed64;
    elapsed = elapsed64;
  } else {
    const __int128 scaled = static_cast<__int128>(need) * segment.rate.denominator;
    elapsed = scaled / segment.rate.numerator;
    if (scaled % segment.rate.numerator != 0 && scaled > 0) ++elapsed;
  }
  const __int128 candidate = static_cast<__int128>(segment.true_start.ns()) + elapsed;
  if (candidate >= until.ns()) return std::nullopt;
  return Instant::from_ns(static_cast<int64_t>(std::max<__int128>(candidate, from.ns())));
}

Instant ProcessClock::first_true_time_reaching_otherwise(ClockKind kind, Instant local,
                                                         Instant from) const {
  // Past the last change on a rate other than one (the header handles rate one): one piece,
  // with no later change to walk to.
  const RateSegment& last = segments_.back();
  if (from >= last.true_start && from >= offsets_.back().true_time) {
    const Instant target =
        kind == ClockKind::wall ? local - offsets_.back().offset : local - Duration::zero();
    return solve(last, target, from, Instant::max()).value_or(Instant::max());
  }
  // Walk the pieces on which both the rate and the wall offset are constant.
  std::size_t s = segment_index(from);
  std::size_t o = offset_index(from);
  Instant piece_start = from;
  while (true) {
    Instant piece_end = Instant::max();
    if (s + 1 < segments_.size()) piece_end = std::min(piece_end, segments_[s + 1].true_start);
    if (kind == ClockKind::wall && o + 1 < offsets_.size()) {
      piece_end = std::min(piece_end, offsets_[o + 1].true_time);
    }
    const Duration offset = kind == ClockKind::wall ? offsets_[o].offset : Duration::zero();
    if (auto t = solve(segments_[s], local - offset, piece_start, piece_end)) return *t;
    // A clock slow enough (a rate of 1/10^9) reaches `local` only after the last representable
    // instant: the deadline never comes, and an event there is past every run's time limit.
    if (piece_end == Instant::max()) return Instant::max();
    piece_start = piece_end;
    if (s + 1 < segments_.size() && segments_[s + 1].true_start == piece_end) ++s;
    if (o + 1 < offsets_.size() && offsets_[o + 1].true_time == piece_end) ++o;
  }
}

}  // namespace redlock_sim
