// Shard arithmetic: "K/N" parsing refuses what a scheduler could not have meant, and the blocks
// and the round robin give each item to exactly one shard.
#include "sim/explore/shard.hpp"

#include <gtest/gtest.h>

#include <vector>

namespace redlock_sim {
namespace {

TEST(Shard, ParsesZeroBasedIndexOverCount) {
  const std::optional<Shard> shard = parse_shard("6/7");
  ASSERT_TRUE(shard.has_value());
  EXPECT_EQ(shard->index, 6u);
  EXPECT_EQ(shard->count, 7u);
  EXPECT_EQ(shard_text(*shard), "6/7");
  ASSERT_TRUE(parse_shard("0/1").has_value());
  ASSERT_TRUE(parse_shard("999999/1000000").has_value());
}

TEST(Shard, RefusesMalformedOrOutOfRange) {
  for (const char* text : {"", "1", "/", "1/", "/3", "3/3", "4/3", "0/0", "-1/3", "+1/3", " 1/3",
                           "1/3 ", "1/3/4", "a/3", "0/1000001", "1/99999999999999999999"}) {
    EXPECT_FALSE(parse_shard(text).has_value()) << text;
  }
}

TEST(Shard, BlocksTileTheItemsInOrderAndDifferByAtMostOne) {
  for (uint64_t total : {0ull, 1ull, 2ull, 10ull, 13ull, 1000ull}) {
    for (uint64_t count : {1ull, 2ull, 3ull, 7ull, 16ull}) {
      uint64_t next = 0;
      uint64_t smallest = total;
      uint64_t largest = 0;
      for (uint64_t k = 0; k < count; ++k) {
        const ItemRange range = shard_block(total, Shard{.index = k, .count = count});
        EXPECT_EQ(range.begin, next) << total << " " << k << "/" << count;
        next = range.end;
        smallest = std::min(smallest, range.size());
        largest = std::max(largest, range.size());
      }
      EXPECT_EQ(next, total);
      EXPECT_LE(largest - smallest, 1u) << total << " over " << count;
    }
  }
}

TEST(Shard, BlocksOfTheWholeSeedSpaceDoNotOverflow) {
  const uint64_t total = ~0ull;
  const ItemRange last = shard_block(total, Shard{.index = 6, .count = 7});
  EXPECT_EQ(last.end, total);
  EXPECT_EQ(shard_block(total, Shard{.index = 5, .count = 7}).end, last.begin);
  EXPECT_EQ(last.begin, total / 7 * 6 + (total % 7) * 6 / 7);
}

TEST(Shard, RoundRobinGivesEachItemToOneShard) {
  for (uint64_t item = 0; item < 50; ++item) {
    int owners = 0;
    for (uint64_t k = 0; k < 7; ++k)
      owners += shard_owns(item, Shard{.index = k, .count = 7}) ? 1 : 0;
    EXPECT_EQ(owners, 1) << item;
    EXPECT_TRUE(shard_owns(item, Shard{.index = item % 7, .count = 7}));
  }
}

}  // namespace
}  // namespace redlock_sim
