// The author's own suite: what my-redlock keeps, each claim one line with redlock_sim's helper.
#include <gtest/gtest.h>
#include <rapidcheck.h>

#include "api/testing/gtest.hpp"
#include "api/testing/rapidcheck.hpp"
#include "my_lock.hpp"

namespace {

const std::string scenario = std::string(MY_LOCK_DIR) + "/my-lock.json";

class MyRedlock : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { my_lock::register_my_redlock(); }
};

// With no faults, three looping clients never overlap.
TEST_F(MyRedlock, KeepsMutualExclusionWithoutFaults) {
  EXPECT_TRUE(redlock_sim::gtest::keeps(scenario, "mutual_exclusion", {}, {.seeds = 3}));
}

// A paused holder's plain DEL frees the next holder's lock: the helper finds and shrinks it.
TEST_F(MyRedlock, LosesMutualExclusionUnderClientPauses) {
  const ::testing::AssertionResult kept =
      redlock_sim::gtest::keeps(scenario, "mutual_exclusion", {"client-pause"}, {.seeds = 20});
  ASSERT_FALSE(kept);
  EXPECT_NE(std::string(kept.message()).find("shrunk counterexample"), std::string::npos)
      << kept.message();
}

// The same claims as RapidCheck properties, one line each. Without faults every case holds.
TEST_F(MyRedlock, RapidCheckKeepsMutualExclusionWithoutFaults) {
  EXPECT_TRUE(rc::check("my-redlock keeps mutual exclusion without faults",
                        redlock_sim::rapidcheck::keeps(scenario, "mutual_exclusion", {})));
}

// Under client pauses a case fails: RapidCheck prints the shrunk fault plan and the line that
// replays the counterexample with my-lock-check (the package test runs it).
TEST_F(MyRedlock, RapidCheckFindsTheBugUnderClientPauses) {
  const redlock_sim::rapidcheck::Claim claim{.out_dir = MY_LOCK_FINDINGS, .program = MY_LOCK_CHECK};
  EXPECT_FALSE(rc::check(
      "my-redlock keeps mutual exclusion under client pauses",
      redlock_sim::rapidcheck::keeps(scenario, "mutual_exclusion", {"client-pause"}, claim)));
}

}  // namespace
