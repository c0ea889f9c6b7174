// The in-tree PRNG: pinned outputs (a change would silently change every seed's run), stream
// independence, unbiased bounded integers and exact probabilities.
#include <gtest/gtest.h>

#include <array>

#include "sim/kernel/random.hpp"

namespace redlock_sim {
namespace {

// SplitMix64 and xoshiro256** match their reference definitions (checked against an
// independent implementation); these values must never change.
TEST(Random, GoldenOutputs) {
  EXPECT_EQ(SplitMix64(0).next(), 0xe220a8397b1dcdafULL);
  Rng rng(0);
  EXPECT_EQ(rng.next_u64(), 0x99ec5f36cb75f2b4ULL);
  EXPECT_EQ(rng.next_u64(), 0xbf6e1f784956452aULL);
  EXPECT_EQ(rng.next_u64(), 0x1a5f849d4933e6e0ULL);
  EXPECT_EQ(rng.next_u64(), 0x6aa594f1262d2d2cULL);
  Rng derived = Rng::derive(42, "network");
  EXPECT_EQ(derived.next_u64(), 0xa57a2711bc83fce9ULL);
  EXPECT_EQ(derived.next_u64(), 0xf2dd67853fa89f18ULL);
}

// Streams derived for different components differ, and the same name gives the same stream.
TEST(Random, DerivedStreamsAreIndependentAndStable) {
  EXPECT_NE(Rng::derive(1, "a").next_u64(), Rng::derive(1, "b").next_u64());
  EXPECT_NE(Rng::derive(1, "a").next_u64(), Rng::derive(2, "a").next_u64());
  EXPECT_EQ(Rng::derive(7, "client/A").next_u64(), Rng::derive(7, "client/A").next_u64());
}

// below(n) stays in range and hits every value about equally often (chi-square, 6 buckets).
TEST(Random, BelowIsInRangeAndUnbiased) {
  Rng rng(123);
  std::array<int, 6> counts{};
  constexpr int draws = 600'000;
  for (int i = 0; i < draws; ++i) {
    const uint64_t v = rng.below(6);
    ASSERT_LT(v, 6u);
    ++counts[v];
  }
  double chi_square = 0;
  for (int c : counts) {
    const double expected = draws / 6.0;
    chi_square += (c - expected) * (c - expected) / expected;
  }
  EXPECT_LT(chi_square, 20.5);  // p = 0.001 for 5 degrees of freedom
  EXPECT_EQ(rng.below(1), 0u);
}

// between() covers both ends; it handles the full int64 range.
TEST(Random, BetweenIsInclusive) {
  Rng rng(5);
  bool low = false;
  bool high = false;
  for (int i = 0; i < 1000; ++i) {
    const int64_t v = rng.between(-2, 2);
    ASSERT_GE(v, -2);
    ASSERT_LE(v, 2);
    low |= v == -2;
    high |= v == 2;
  }
  EXPECT_TRUE(low && high);
  (void)rng.between(INT64_MIN, INT64_MAX);
}

// chance(n, d) is exact at the edges and close to n/d in between.
TEST(Random, ChanceHasTheStatedProbability) {
  Rng rng(9);
  EXPECT_FALSE(rng.chance(0, 5));
  EXPECT_TRUE(rng.chance(5, 5));
  int hits = 0;
  for (int i = 0; i < 300'000; ++i)
    hits += rng.chance(1, 3) ? 1 : 0;
  EXPECT_NEAR(hits / 300'000.0, 1.0 / 3.0, 0.005);
}

}  // namespace
}  // namespace redlock_sim
