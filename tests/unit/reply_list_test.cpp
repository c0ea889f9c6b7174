// ReplyList, the elements of an array reply, behaves as the std::vector<Reply> it replaced: copies
// are deep, moves leave the source empty, assigning or pushing one of a list's own elements is
// safe, and equality compares element by element.
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <utility>

#include "lock_impls/port/reply.hpp"

namespace redlock_sim {
namespace {

// A reply nested two levels deep, with texts too long for the string's inline buffer.
Reply nested() {
  return Reply::array({Reply::bulk(std::string(40, 'a')), Reply::integer_reply(7),
                       Reply::array({Reply::status("OK"), Reply::bulk(std::string(20, 'b'))})});
}

TEST(ReplyList, EmptyByDefaultAndBuiltFromABracedList) {
  const Reply nil = Reply::nil_reply();
  EXPECT_TRUE(nil.elements.empty());
  EXPECT_EQ(nil.elements.size(), 0u);
  EXPECT_EQ(nil.elements.begin(), nil.elements.end());
  const Reply reply = nested();
  ASSERT_EQ(reply.elements.size(), 3u);
  EXPECT_EQ(reply.elements[0], Reply::bulk(std::string(40, 'a')));
  EXPECT_EQ(reply.elements.at(2).elements.at(1), Reply::bulk(std::string(20, 'b')));
  EXPECT_THROW((void)reply.elements.at(3), std::out_of_range);
  EXPECT_TRUE(Reply::array({}).elements.empty());
}

TEST(ReplyList, CopiesAreDeepAndMovesLeaveTheSourceEmpty) {
  Reply original = nested();
  Reply copy = original;
  EXPECT_EQ(copy, original);
  copy.elements[2].elements[0].text = "changed";
  EXPECT_NE(copy, original);
  EXPECT_EQ(original.elements[2].elements[0], Reply::status("OK"));
  Reply moved = std::move(original);
  EXPECT_EQ(moved, nested());
  EXPECT_TRUE(original.elements.empty());  // NOLINT(bugprone-use-after-move): checked on purpose
  copy = moved;
  EXPECT_EQ(copy, moved);
  copy = Reply::ok();
  EXPECT_TRUE(copy.elements.empty());
  EXPECT_EQ(copy, Reply::ok());
}

TEST(ReplyList, AssigningOrPushingItsOwnElementIsSafe) {
  Reply reply = nested();
  reply = std::move(reply.elements[2]);  // the list holding the source is freed after the move
  EXPECT_EQ(reply, Reply::array({Reply::status("OK"), Reply::bulk(std::string(20, 'b'))}));
  ReplyList list;
  list.push_back(Reply::bulk(std::string(30, 'c')));
  for (int i = 0; i < 40; ++i)
    list.push_back(list[0]);  // copied before the list grows
  ASSERT_EQ(list.size(), 41u);
  for (const Reply& element : list)
    EXPECT_EQ(element, Reply::bulk(std::string(30, 'c')));
  const ReplyList& same = list;
  list = same;  // self-assignment keeps the elements
  EXPECT_EQ(list.size(), 41u);
  Reply copied = nested();
  copied = copied.elements[2];  // a copy of its own element, taken before the list goes
  EXPECT_EQ(copied, Reply::array({Reply::status("OK"), Reply::bulk(std::string(20, 'b'))}));
  Reply inner = nested();
  inner.elements = inner.elements[2].elements;  // a list assigned a copy of its element's list
  EXPECT_EQ(inner.elements, ReplyList({Reply::status("OK"), Reply::bulk(std::string(20, 'b'))}));
}

// A list longer than 2^32 - 1 is refused with an exception, not built with a wrapped capacity.
TEST(ReplyList, RefusesMoreElementsThanItCanCount) {
  ReplyList list;
  EXPECT_THROW(list.reserve(std::size_t{1} << 33), std::length_error);
  EXPECT_TRUE(list.empty());
}

TEST(ReplyList, EqualityComparesSizesThenElements) {
  ReplyList a;
  ReplyList b;
  EXPECT_EQ(a, b);
  b.reserve(8);  // room without elements is still empty
  EXPECT_TRUE(b.empty());
  EXPECT_EQ(a, b);
  a.push_back(Reply::integer_reply(1));
  EXPECT_NE(a, b);
  b.push_back(Reply::integer_reply(2));
  EXPECT_NE(a, b);
  b = a;
  EXPECT_EQ(a, b);
}

}  // namespace
}  // namespace redlock_sim
