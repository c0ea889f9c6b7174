#include "real/loop.hpp"

#include <time.h>

#include <algorithm>
#include <cerrno>

namespace redlock_sim::real {

namespace {
int64_t read_clock(clockid_t clock) {
  timespec t{};
  ::clock_gettime(clock, &t);
  return static_cast<int64_t>(t.tv_sec) * 1'000'000'000 + t.tv_nsec;
}
}  // namespace

int64_t monotonic_ns() {
  return read_clock(CLOCK_MONOTONIC);
}
int64_t realtime_ns() {
  return read_clock(CLOCK_REALTIME);
}

uint64_t Loop::at(int64_t when_ns, std::function<void()> action) {
  const uint64_t id = next_timer_++;
  timers_.emplace(when_ns, Timer{id, std::move(action)});
  timer_times_[id] = when_ns;
  return id;
}

void Loop::cancel(uint64_t timer) {
  auto it = timer_times_.find(timer);
  if (it == timer_times_.end()) return;
  auto [first, last] = timers_.equal_range(it->second);
  for (auto t = first; t != last; ++t) {
    if (t->second.id == timer) {
      timers_.erase(t);
      break;
    }
  }
  timer_times_.erase(it);
}

void Loop::watch(int fd, FdHandler handler) {
  handlers_[fd] = std::move(handler);
}

void Loop::unwatch(int fd) {
  handlers_.erase(fd);
}

int64_t Loop::next_timer_ns() const {
  return timers_.empty() ? INT64_MAX : timers_.begin()->first;
}

void Loop::run_once(int64_t max_wait_ns) {
  const int64_t now = monotonic_ns();
  int64_t wait_ns = std::min(max_wait_ns, next_timer_ns() - now);
  wait_ns = std::max<int64_t>(0, wait_ns);
  std::vector<pollfd> fds;
  for (const auto& [fd, handler] : handlers_)
    fds.push_back(pollfd{.fd = fd, .events = POLLIN, .revents = 0});
  const timespec timeout{.tv_sec = wait_ns / 1'000'000'000, .tv_nsec = wait_ns % 1'000'000'000};
  const int ready = ::ppoll(fds.data(), fds.size(), &timeout, nullptr);
  if (ready > 0) {
    for (const pollfd& p : fds) {
      if (p.revents == 0) continue;
      auto it = handlers_.find(p.fd);
      if (it == handlers_.end()) continue;  // unwatched by an earlier handler
      FdHandler handler = it->second;       // a copy: the handler may unwatch itself
      handler(p.revents);
    }
  }
  // Timers due now, in time order; a timer added by one of them for the past runs next round.
  const int64_t due = monotonic_ns();
  while (!timers_.empty() && timers_.begin()->first <= due) {
    Timer timer = std::move(timers_.begin()->second);
    timers_.erase(timers_.begin());
    timer_times_.erase(timer.id);
    timer.action();
  }
}

}  // namespace redlock_sim::real
