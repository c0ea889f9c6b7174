// The kernel demo: a small true story told by the kernel alone, until the scenario runner exists.
// A client sends a request every 200 ms to a server; the client is paused for a while (its
// replies wait in its socket buffer) and the server's wall clock steps forward. The timeline
// shows true time beside each process's local wall and monotonic time.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace redlock_sim {

struct KernelDemoResult {
  std::vector<std::string> timeline;
  std::string trace_digest;
  uint64_t events = 0;
};

KernelDemoResult run_kernel_demo(uint64_t seed);

}  // namespace redlock_sim
