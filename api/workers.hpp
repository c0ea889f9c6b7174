// How the library runs work in parallel without owning threads: it hands `count` copies of a
// worker (each takes items from a shared counter until none are left) to a RunWorkers, which
// runs them and returns when every one has returned. The CLI passes its worker pool; an
// embedding program may pass its own, and by default the library runs one worker inline.
#pragma once

#include <functional>

namespace redlock_sim {

using RunWorkers = std::function<void(unsigned count, const std::function<void()>& worker)>;

// Runs one worker on the calling thread: it takes every item.
inline void run_workers_inline(unsigned, const std::function<void()>& worker) {
  worker();
}

}  // namespace redlock_sim
