// Unit tests for the kernel's event queue: (time, sequence) order through the packed entries,
// the taken root replaced by a push, sequences renumbered past their limit, bodies reused.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <set>
#include <utility>
#include <vector>

#include "sim/kernel/random.hpp"
#include "sim/kernel/simulator.hpp"

namespace redlock_sim {
namespace {

// The queue beside a reference: a set ordered on (time, push number).
struct Checked {
  explicit Checked(uint64_t sequence_limit = EventQueue::default_sequence_limit)
      : queue(sequence_limit) {}
  EventQueue queue;
  std::set<std::pair<int64_t, uint64_t>> reference;
  uint64_t pushes = 0;

  void push(int64_t time_ns) {
    queue.push(Instant::from_ns(time_ns), Event{.payload = pushes, .kind = EventKind::action});
    reference.insert({time_ns, pushes});
    ++pushes;
  }
  // Takes the earliest event, checks it against the reference, then pushes `then` (times) as a
  // dispatch would, and finishes the take.
  void take(const std::vector<int64_t>& then = {}) {
    ASSERT_FALSE(queue.empty());
    ASSERT_FALSE(reference.empty());
    const auto expected = *reference.begin();
    reference.erase(reference.begin());
    EXPECT_EQ(queue.next_time().ns(), expected.first);
    const Event event = queue.take();
    EXPECT_EQ(event.payload, expected.second);
    EXPECT_EQ(queue.size(), reference.size());  // the taken event is no longer counted
    for (int64_t time_ns : then)
      push(time_ns);
    queue.finish_take();
    EXPECT_EQ(queue.size(), reference.size());
  }
};

// Events come out in (time, push order), with many equal times (ties broken by the sequence in
// the entry's key, above the body index), whether a dispatch pushes none, one or several.
TEST(EventQueue, TakesInTimeThenPushOrder) {
  Rng rng = Rng::derive(7, "event-queue-test");
  Checked checked;
  for (int i = 0; i < 40; ++i)
    checked.push(rng.between(0, 30));
  for (int step = 0; step < 5000; ++step) {
    const int64_t now = checked.queue.next_time().ns();
    std::vector<int64_t> then;
    const int64_t pushes = checked.queue.size() < 20 ? rng.between(1, 3) : rng.between(0, 2);
    for (int64_t p = 0; p < pushes; ++p)
      then.push_back(now + rng.between(0, 12));
    checked.take(then);
  }
  while (!checked.queue.empty())
    checked.take();
  EXPECT_TRUE(checked.reference.empty());
}

// Past the sequence limit the queued sequences are renumbered in their order: ties pushed before
// and after a renumbering still come out in push order, and the counter never passes the limit.
TEST(EventQueue, RenumberedSequencesKeepTheOrder) {
  Rng rng = Rng::derive(8, "event-queue-test");
  Checked checked(/*sequence_limit=*/64);
  for (int i = 0; i < 30; ++i)
    checked.push(rng.between(0, 4));
  uint64_t renumberings = 0;
  uint64_t last_sequence = checked.queue.next_sequence();
  for (int step = 0; step < 3000; ++step) {
    const int64_t now = checked.queue.next_time().ns();
    std::vector<int64_t> then;
    const int64_t pushes = checked.queue.size() < 30 ? 2 : rng.between(0, 1);
    for (int64_t p = 0; p < pushes; ++p)
      then.push_back(now + rng.between(0, 3));  // few distinct times: ties everywhere
    checked.take(then);
    EXPECT_LE(checked.queue.next_sequence(), 64u);  // renumbered at the next push
    if (checked.queue.next_sequence() < last_sequence) ++renumberings;
    last_sequence = checked.queue.next_sequence();
  }
  EXPECT_GT(renumberings, 50u);
  while (!checked.queue.empty())
    checked.take();
}

// A taken event's body is given back before its dispatch pushes: a queue that holds n events
// makes n bodies, however many events pass through it.
TEST(EventQueue, BodiesAreReused) {
  Checked checked;
  for (int i = 0; i < 10; ++i)
    checked.push(i);
  for (int step = 0; step < 1000; ++step) {
    const int64_t now = checked.queue.next_time().ns();
    checked.take({now + 10});
  }
  EXPECT_EQ(checked.queue.body_slots(), 10u);
  for (int step = 0; step < 5; ++step)
    checked.take();
  EXPECT_EQ(checked.queue.size(), 5u);
  for (int i = 0; i < 5; ++i)
    checked.push(checked.queue.next_time().ns() + i);
  EXPECT_EQ(checked.queue.body_slots(), 10u);
  while (!checked.queue.empty())
    checked.take();
}

// Events at the last instant (a timer on a clock too slow to reach its deadline is aimed at
// Instant::max()) tie with the sentinels after the heap on time: they still come out, in push
// order, after every earlier event, and a sentinel never does, at every heap size around a
// level's end (1 to 21 events: the sentinels fall among the children of every kind of node).
TEST(EventQueue, EventsAtTheLastInstantComeOutAndSentinelsNever) {
  const int64_t last = Instant::max().ns();
  for (int size = 1; size <= 21; ++size) {
    Checked checked;
    for (int i = 0; i < size; ++i)
      checked.push(i % 3 == 0 ? last : i);
    // The first dispatch pushes another event at the last instant; then all drain.
    checked.take({last});
    while (!checked.queue.empty())
      checked.take();
    EXPECT_TRUE(checked.reference.empty()) << size;
    EXPECT_EQ(checked.pushes, static_cast<uint64_t>(size) + 1);
  }
}

}  // namespace
}  // namespace redlock_sim
