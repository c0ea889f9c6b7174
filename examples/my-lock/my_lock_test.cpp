// The author's own suite: what my-redlock keeps, each claim one line with redlock_sim's helper.
#include <gtest/gtest.h>

#include "api/testing/gtest.hpp"
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

}  // namespace
