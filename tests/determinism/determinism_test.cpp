// Determinism: the same generated schedule and seed give the same trace digest, in one process
// and across two OS processes; different seeds give different digests.
#include <gtest/gtest.h>

#include <cstdio>
#include <memory>
#include <set>
#include <string>

#include "tests/determinism/probe/schedule.hpp"

namespace redlock_sim {
namespace {

std::string run_probe(uint64_t seed) {
  const std::string command = std::string(DETERMINISM_PROBE_PATH) + " " + std::to_string(seed);
  std::unique_ptr<FILE, int (*)(FILE*)> pipe(popen(command.c_str(), "r"), pclose);
  std::string output;
  char buffer[256];
  while (pipe && fgets(buffer, sizeof buffer, pipe.get()) != nullptr)
    output += buffer;
  if (!output.empty() && output.back() == '\n') output.pop_back();
  return output;
}

// Any generated schedule run twice in one process gives the same digest.
TEST(Determinism, SameSeedSameDigestInOneProcess) {
  for (uint64_t seed = 1; seed <= 200; ++seed) {
    EXPECT_EQ(testing::run_generated_schedule(seed), testing::run_generated_schedule(seed))
        << "seed " << seed;
  }
}

// The digest does not depend on the OS process (addresses, allocation order, environment).
TEST(Determinism, SameSeedSameDigestAcrossProcesses) {
  for (uint64_t seed : {1ULL, 2ULL, 3ULL, 99ULL, 123456789ULL, 18446744073709551615ULL}) {
    EXPECT_EQ(testing::run_generated_schedule(seed), run_probe(seed)) << "seed " << seed;
  }
}

// Different seeds lead to different runs.
TEST(Determinism, DifferentSeedsDifferentDigests) {
  std::set<std::string> digests;
  for (uint64_t seed = 1; seed <= 200; ++seed) {
    digests.insert(testing::run_generated_schedule(seed));
  }
  EXPECT_EQ(digests.size(), 200u);
}

}  // namespace
}  // namespace redlock_sim
