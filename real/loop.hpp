// The harness's event loop: one thread, ppoll over sockets and pipes, timers on CLOCK_MONOTONIC.
// Real time is allowed here and only here (docs/real-mode.md); every action it takes can be
// compared with the time it was scheduled for.
#pragma once

#include <poll.h>

#include <cstdint>
#include <functional>
#include <map>
#include <vector>

namespace redlock_sim::real {

int64_t monotonic_ns();  // CLOCK_MONOTONIC, the harness's (and every process's) true time
int64_t realtime_ns();   // CLOCK_REALTIME, unshifted

class Loop {
 public:
  using FdHandler = std::function<void(short revents)>;

  // Runs `action` at monotonic time `when_ns` (or at once if past); returns an id for cancel.
  uint64_t at(int64_t when_ns, std::function<void()> action);
  void cancel(uint64_t timer);
  void watch(int fd, FdHandler handler);  // readable (and hang-ups)
  void unwatch(int fd);
  // Waits for the next timer or readable descriptor, at most `max_wait_ns`, and runs them.
  void run_once(int64_t max_wait_ns);
  bool has_timers() const { return !timers_.empty(); }
  int64_t next_timer_ns() const;

 private:
  struct Timer {
    uint64_t id;
    std::function<void()> action;
  };
  std::multimap<int64_t, Timer> timers_;
  std::map<uint64_t, int64_t> timer_times_;
  std::map<int, FdHandler> handlers_;
  uint64_t next_timer_ = 1;
};

}  // namespace redlock_sim::real
