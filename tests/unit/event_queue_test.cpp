// Unit tests for the kernel's event queue: (time, sequence) order through the packed entries,
// the taken root replaced by a push, sequences renumbered past their limit, bodies reused, the
// streams' FIFOs beside the heap.
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
  // Into a stream's FIFO when in order there, else on the heap: the same order either way.
  void push_in_order(EventStream stream, int64_t time_ns) {
    queue.push_in_order(stream, Instant::from_ns(time_ns),
                        Event{.payload = pushes, .kind = EventKind::action});
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

// A dispatch's pushes, as a run makes them: on the heap, or in either stream, the stream's
// times mostly in order (a fixed delay from now) and now and then earlier (then on the heap).
void push_mixed(Checked& checked, Rng& rng, int64_t now, int64_t pushes) {
  for (int64_t p = 0; p < pushes; ++p) {
    switch (rng.between(0, 2)) {
      case 0:
        checked.push(now + rng.between(0, 12));
        break;
      case 1:
        checked.push_in_order(EventStream::deliveries,
                              now + (rng.chance(1, 8) ? rng.between(0, 3) : 3));
        break;
      default:
        checked.push_in_order(EventStream::timeouts,
                              now + (rng.chance(1, 8) ? rng.between(0, 9) : 9));
        break;
    }
  }
}

// With the FIFOs beside the heap, events still come out in (time, push order): the earliest of
// the heap's root and the FIFOs' fronts, ties (many) broken by push order across all three.
TEST(EventQueue, StreamsInTheirFifosKeepTimeThenPushOrder) {
  Rng rng = Rng::derive(9, "event-queue-test");
  Checked checked;
  push_mixed(checked, rng, 0, 40);
  std::size_t off_heap_max = 0;
  for (int step = 0; step < 20000; ++step) {
    const int64_t now = checked.queue.next_time().ns();
    const int64_t pushes = checked.queue.size() < 30 ? rng.between(1, 3) : rng.between(0, 2);
    ASSERT_FALSE(checked.queue.empty());
    const auto expected = *checked.reference.begin();
    checked.reference.erase(checked.reference.begin());
    const Event event = checked.queue.take();
    ASSERT_EQ(event.payload, expected.second) << step;
    push_mixed(checked, rng, now, pushes);
    checked.queue.finish_take();
    ASSERT_EQ(checked.queue.size(), checked.reference.size());
    off_heap_max = std::max(off_heap_max, checked.queue.size() - checked.queue.heap_size());
  }
  EXPECT_GT(off_heap_max, 10u);  // the FIFOs were used
  while (!checked.queue.empty())
    checked.take();
  EXPECT_TRUE(checked.reference.empty());
}

// Pushes in time order stay off the heap (an event taken from a FIFO costs no sift); a delivery
// earlier than its FIFO's last goes on the heap, and so does a timeout earlier than the lasts of
// both timeout FIFOs; each still comes out in its place.
TEST(EventQueue, InOrderPushesStayOffTheHeap) {
  Checked checked;
  for (int i = 0; i < 100; ++i)
    checked.push_in_order(EventStream::deliveries, 10 + i / 3);
  for (int i = 0; i < 100; ++i)
    checked.push_in_order(EventStream::timeouts, 5 + i / 2);
  EXPECT_EQ(checked.queue.heap_size(), 0u);
  checked.push_in_order(EventStream::deliveries, 9);
  EXPECT_EQ(checked.queue.heap_size(), 1u);
  checked.push_in_order(EventStream::timeouts, 7);  // the second timeout FIFO's first
  EXPECT_EQ(checked.queue.heap_size(), 1u);
  checked.push_in_order(EventStream::timeouts, 6);
  EXPECT_EQ(checked.queue.heap_size(), 2u);
  // A FIFO that never drains (one pushed per one taken) reuses its room.
  for (int step = 0; step < 5000; ++step) {
    const int64_t now = checked.queue.next_time().ns();
    checked.take({});
    checked.push_in_order(EventStream::deliveries, now + 40);
  }
  EXPECT_EQ(checked.queue.heap_size(), 0u);
  EXPECT_LE(checked.queue.body_slots(), 204u);  // the 203 events queued above, and one
  while (!checked.queue.empty())
    checked.take();
}

// Timeouts of two lengths interleaved (a client's 50 ms lock requests between its 1000 ms
// resource requests) keep to the two timeout FIFOs, none on the heap, and come out in (time,
// push order); a third length interleaved with both goes on the heap.
TEST(EventQueue, TimeoutsOfTwoLengthsInterleavedStayOffTheHeap) {
  Checked checked;
  int64_t now = 0;
  for (int i = 0; i < 400; ++i) {
    checked.push_in_order(EventStream::timeouts, now + (i % 7 == 3 ? 1000 : 50));
    now += 5;
  }
  EXPECT_EQ(checked.queue.heap_size(), 0u);
  for (int i = 0; i < 200; ++i)
    checked.take();
  checked.push_in_order(EventStream::timeouts, now + 1000);
  checked.push_in_order(EventStream::timeouts, now + 50);
  EXPECT_EQ(checked.queue.heap_size(), 0u);
  checked.push_in_order(EventStream::timeouts, now + 20);
  EXPECT_EQ(checked.queue.heap_size(), 1u);
  while (!checked.queue.empty())
    checked.take();
  EXPECT_TRUE(checked.reference.empty());
}

// Renumbering takes in the FIFOs' entries: ties across the heap and the FIFOs keep push order
// through many renumberings.
TEST(EventQueue, RenumberingKeepsTheFifosInOrder) {
  Rng rng = Rng::derive(10, "event-queue-test");
  Checked checked(/*sequence_limit=*/64);
  push_mixed(checked, rng, 0, 30);
  uint64_t renumberings = 0;
  uint64_t last_sequence = checked.queue.next_sequence();
  for (int step = 0; step < 5000; ++step) {
    const int64_t now = checked.queue.next_time().ns();
    const auto expected = *checked.reference.begin();
    checked.reference.erase(checked.reference.begin());
    ASSERT_EQ(checked.queue.take().payload, expected.second) << step;
    push_mixed(checked, rng, now, checked.queue.size() < 30 ? 2 : rng.between(0, 1));
    checked.queue.finish_take();
    EXPECT_LE(checked.queue.next_sequence(), 64u);
    if (checked.queue.next_sequence() < last_sequence) ++renumberings;
    last_sequence = checked.queue.next_sequence();
  }
  EXPECT_GT(renumberings, 50u);
  while (!checked.queue.empty())
    checked.take();
  EXPECT_TRUE(checked.reference.empty());
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
