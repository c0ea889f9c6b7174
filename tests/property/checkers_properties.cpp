// Laws of the checkers over generated histories (RapidCheck, 150 cases in the suite).
#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include <algorithm>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "sim/checkers/checkers.hpp"

namespace redlock_sim {
namespace {

// ---------------------------------------------------------------------------------------------
// The liveness checker against the plain model it replaced: every wanted window compared with
// every hold, every failed call with every window (quadratic in the run's length, which is why
// the checker now walks the merged lists once). The same verdict, violations in the same order
// with the same words, and the same longest unavailability and time to acquire, for any history.

using Window = std::pair<Instant, Instant>;

std::vector<Window> model_merged(std::vector<Window> windows) {
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

bool model_overlaps_any(const std::vector<Window>& held, Instant start, Instant end) {
  for (const Window& w : held) {
    if (w.first < end && start < w.second) return true;
  }
  return false;
}

std::map<std::string, std::vector<Window>> model_windows(const std::vector<HoldInterval>& holds) {
  std::map<std::string, std::vector<Window>> by_lock;
  for (const HoldInterval& h : holds)
    by_lock[h.lock].emplace_back(h.start, h.end);
  for (auto& [lock, windows] : by_lock)
    windows = model_merged(std::move(windows));
  return by_lock;
}

struct ModelLiveness {
  std::vector<std::pair<std::string, Window>> livelocks;  // (lock, call window), in call order
  std::vector<std::pair<std::string, Window>> gaps;       // every stretch held by nobody
  std::optional<Duration> longest_unavailability;
  std::optional<Duration> longest_time_to_acquire;
};

ModelLiveness model_liveness(const History& history, const std::vector<HoldInterval>& holds,
                             Instant run_end, const std::vector<HoldInterval>& crashed_waits) {
  ModelLiveness result;
  auto held = model_windows(holds);
  auto waiting = model_windows(crashed_waits);
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
               !model_overlaps_any(held[call.lock], call.started, end) &&
               !model_overlaps_any(waiting[call.lock], call.started, end)) {
      result.livelocks.emplace_back(call.lock, Window{call.started, end});
    }
  }
  for (auto& [lock, windows] : wanted) {
    const std::vector<Window>& busy = held[lock];
    for (const Window& want : model_merged(windows)) {
      Instant cursor = want.first;
      for (const Window& h : busy) {
        if (h.second <= cursor || h.first >= want.second) continue;
        if (h.first > cursor) result.gaps.emplace_back(lock, Window{cursor, h.first});
        cursor = std::max(cursor, h.second);
      }
      if (cursor < want.second) result.gaps.emplace_back(lock, Window{cursor, want.second});
    }
  }
  for (const auto& [lock, gap] : result.gaps) {
    const Duration length = gap.second - gap.first;
    if (!result.longest_unavailability || length > *result.longest_unavailability) {
      result.longest_unavailability = length;
    }
  }
  return result;
}

// Small integer times, so that windows touch, nest and coincide often.
Instant at_ms(int v) {
  return Instant::from_ms(v);
}

std::vector<HoldInterval> generated_intervals(const char* what) {
  const auto raw =
      *rc::gen::container<std::vector<std::tuple<int, int, int>>>(
           rc::gen::tuple(rc::gen::inRange(0, 3), rc::gen::inRange(0, 60), rc::gen::inRange(0, 15)))
           .as(what);
  std::vector<HoldInterval> out;
  for (const auto& [lock, start, length] : raw) {
    out.push_back(HoldInterval{.grant_id = out.size() + 1,
                               .client = static_cast<ProcessId>(lock),
                               .lock = "lock" + std::to_string(lock),
                               .start = at_ms(start),
                               .end = at_ms(start + length)});
  }
  return out;
}

RC_GTEST_PROP(CheckerProperties, LivenessAgreesWithTheQuadraticModel, ()) {
  History history;
  const int run_end_ms = *rc::gen::inRange(60, 90).as("run end");
  const auto calls =
      *rc::gen::container<std::vector<std::tuple<int, int, int, int, int>>>(
           rc::gen::tuple(rc::gen::inRange(0, 3), rc::gen::inRange(0, 60), rc::gen::inRange(0, 20),
                          rc::gen::inRange(0, 4),   // 0 still running, 1 succeeded, 2 gave up,
                                                    // 3 interrupted
                          rc::gen::inRange(0, 3)))  // attempts
           .as("calls (lock, start, length, end, attempts)");
  for (const auto& [lock, start, length, ending, attempts] : calls) {
    const std::size_t call = history.begin_acquire(static_cast<ProcessId>(lock),
                                                   "lock" + std::to_string(lock), at_ms(start));
    if (ending == 1 || ending == 2) {
      history.end_acquire(call, at_ms(start + length), ending == 1, 0,
                          static_cast<uint32_t>(attempts));
    } else if (ending == 3) {
      history.interrupt_acquires_of(static_cast<ProcessId>(lock), at_ms(start + length));
    }
  }
  const auto holds = generated_intervals("holds (lock, start, length)");
  const auto waits = generated_intervals("crashed holders' waits (lock, start, length)");
  std::optional<Duration> bound;
  if (*rc::gen::arbitrary<bool>().as("bounded")) {
    bound = Duration::from_ms(*rc::gen::inRange(0, 20).as("unavailability bound, ms"));
  }

  const LivenessResult got = check_liveness(history, holds, at_ms(run_end_ms), bound, waits);
  const ModelLiveness want = model_liveness(history, holds, at_ms(run_end_ms), waits);

  RC_ASSERT(got.longest_time_to_acquire == want.longest_time_to_acquire);
  RC_ASSERT(got.longest_unavailability == want.longest_unavailability);
  // Livelocks first (in call order), then the unavailabilities past the bound (in lock, then
  // time order), as the checker reports them.
  std::vector<std::tuple<std::string, Instant, Instant>> expected;
  for (const auto& [lock, window] : want.livelocks)
    expected.emplace_back("livelock", window.first, window.second);
  for (const auto& [lock, gap] : want.gaps) {
    if (bound && gap.second - gap.first > *bound) {
      expected.emplace_back("unavailability", gap.first, gap.second);
    }
  }
  RC_ASSERT(got.violations.size() == expected.size());
  for (std::size_t i = 0; i < expected.size(); ++i) {
    RC_ASSERT(got.violations[i].kind == std::get<0>(expected[i]));
    RC_ASSERT(got.violations[i].start == std::get<1>(expected[i]));
    RC_ASSERT(got.violations[i].end == std::get<2>(expected[i]));
  }
  RC_ASSERT((got.verdict == Verdict::violated) == !expected.empty());
}

}  // namespace
}  // namespace redlock_sim
