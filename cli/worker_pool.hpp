// The one worker pool of the executable. explore, matrix, sweep and agree run their items on it
// (each item single-threaded and deterministic; results land in per-item slots, so the output
// does not depend on the number of workers), and it is the RunWorkers the library's calls get.
#pragma once

#include <atomic>
#include <chrono>
#include <functional>
#include <thread>
#include <vector>

#include "api/workers.hpp"

namespace redlock_sim::cli {

// Runs `worker` on `count` threads and returns when every one has returned. With `tick`, the
// calling thread calls it about every 10 ms meanwhile (a progress line); without, the calling
// thread is one of the workers.
inline void run_workers(unsigned count, const std::function<void()>& worker,
                        const std::function<void()>& tick = {}) {
  if (count == 0) return;
  std::atomic<unsigned> running{count};
  const auto counted = [&] {
    worker();
    running--;
  };
  std::vector<std::thread> threads;
  const unsigned spawned = tick ? count : count - 1;
  for (unsigned i = 0; i < spawned; ++i)
    threads.emplace_back(counted);
  if (!tick) {
    counted();
  } else {
    while (running.load() > 0) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
      tick();
    }
  }
  for (std::thread& t : threads)
    t.join();
}

inline RunWorkers worker_pool() {
  return [](unsigned count, const std::function<void()>& worker) { run_workers(count, worker); };
}

}  // namespace redlock_sim::cli
