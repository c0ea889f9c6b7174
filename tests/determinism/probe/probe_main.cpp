// Prints the trace digest of a generated schedule, for comparing runs across OS processes.
#include <cstdio>
#include <cstdlib>

#include "tests/determinism/probe/schedule.hpp"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: determinism_probe SEED\n");
    return 2;
  }
  const uint64_t seed = std::strtoull(argv[1], nullptr, 10);
  std::printf("%s\n", redlock_sim::testing::run_generated_schedule(seed).c_str());
  return 0;
}
