// Integer time for everything that decides behaviour: strong types over int64 nanoseconds.
//
// `Duration` is a span of time; `Instant` is a point on some time line. Which line is a matter of
// who reads it: the simulator's true time, a process's wall clock (nanoseconds since the Unix
// epoch) or its monotonic clock (nanoseconds since boot). The type system keeps spans and points
// apart; the names at call sites (`true_now`, `wall_now`, `monotonic_now`) keep the lines apart.
#pragma once

#include <compare>
#include <cstdint>
#include <limits>
#include <ostream>

namespace redlock_sim {

// Which of a process's two clocks a reading or deadline is on: the wall clock (Unix time, may
// step) or the monotonic clock (since boot, never steps).
enum class ClockKind : uint8_t { wall, monotonic };

class Duration {
 public:
  constexpr Duration() = default;
  static constexpr Duration from_ns(int64_t ns) { return Duration(ns); }
  static constexpr Duration from_us(int64_t us) { return Duration(us * 1'000); }
  static constexpr Duration from_ms(int64_t ms) { return Duration(ms * 1'000'000); }
  static constexpr Duration from_s(int64_t s) { return Duration(s * 1'000'000'000); }
  static constexpr Duration zero() { return Duration(0); }
  static constexpr Duration max() { return Duration(std::numeric_limits<int64_t>::max()); }

  constexpr int64_t ns() const { return ns_; }
  // Truncates toward negative infinity, as Redis and the catalogue's `floor` do.
  constexpr int64_t ms_floor() const { return floor_div(ns_, 1'000'000); }

  constexpr auto operator<=>(const Duration&) const = default;
  constexpr Duration operator+(Duration other) const { return Duration(ns_ + other.ns_); }
  constexpr Duration operator-(Duration other) const { return Duration(ns_ - other.ns_); }
  constexpr Duration operator-() const { return Duration(-ns_); }
  constexpr Duration operator*(int64_t factor) const { return Duration(ns_ * factor); }
  constexpr Duration operator/(int64_t divisor) const { return Duration(ns_ / divisor); }
  constexpr Duration& operator+=(Duration other) {
    ns_ += other.ns_;
    return *this;
  }
  constexpr Duration& operator-=(Duration other) {
    ns_ -= other.ns_;
    return *this;
  }

  static constexpr int64_t floor_div(int64_t a, int64_t b) {
    const int64_t q = a / b;
    return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
  }

 private:
  constexpr explicit Duration(int64_t ns) : ns_(ns) {}
  int64_t ns_ = 0;
};

class Instant {
 public:
  constexpr Instant() = default;
  static constexpr Instant from_ns(int64_t ns) { return Instant(ns); }
  static constexpr Instant from_ms(int64_t ms) { return Instant(ms * 1'000'000); }
  static constexpr Instant zero() { return Instant(0); }
  static constexpr Instant max() { return Instant(std::numeric_limits<int64_t>::max()); }

  constexpr int64_t ns() const { return ns_; }
  constexpr int64_t ms_floor() const { return Duration::floor_div(ns_, 1'000'000); }

  constexpr auto operator<=>(const Instant&) const = default;
  constexpr Instant operator+(Duration d) const { return Instant(ns_ + d.ns()); }
  constexpr Instant operator-(Duration d) const { return Instant(ns_ - d.ns()); }
  constexpr Duration operator-(Instant other) const { return Duration::from_ns(ns_ - other.ns_); }
  constexpr Instant& operator+=(Duration d) {
    ns_ += d.ns();
    return *this;
  }

 private:
  constexpr explicit Instant(int64_t ns) : ns_(ns) {}
  int64_t ns_ = 0;
};

// For test failure messages and logs: nanoseconds, with milliseconds beside them.
inline std::ostream& operator<<(std::ostream& out, Duration d) {
  return out << d.ns() << "ns (" << d.ms_floor() << "ms)";
}
inline std::ostream& operator<<(std::ostream& out, Instant t) {
  return out << "@" << t.ns() << "ns (" << t.ms_floor() << "ms)";
}

}  // namespace redlock_sim
