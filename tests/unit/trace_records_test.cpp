// The trace's record store (TraceRecords, sim/kernel/trace.hpp) keeps every record in order across
// its chunk boundaries, by index and by iteration, and Trace stops keeping at records_max while
// its count and digest go on.
#include <gtest/gtest.h>

#include <vector>

#include "sim/kernel/trace.hpp"

namespace redlock_sim {
namespace {

TEST(TraceRecords, KeepsEveryRecordInOrderAcrossChunks) {
  TraceRecords records;
  EXPECT_TRUE(records.empty());
  const std::size_t count = 3 * TraceRecords::chunk_records + 5;
  for (std::size_t i = 0; i < count; ++i) {
    records.push_back(TraceRecord{.time_ns = static_cast<int64_t>(i),
                                  .a = i * 3,
                                  .b = i * 7,
                                  .process = static_cast<uint32_t>(i % 11),
                                  .peer = 0,
                                  .kind = TraceKind::timer_fired});
  }
  ASSERT_EQ(records.size(), count);
  for (const std::size_t i :
       {std::size_t{0}, TraceRecords::chunk_records - 1, TraceRecords::chunk_records, count - 1}) {
    EXPECT_EQ(records[i].time_ns, static_cast<int64_t>(i));
    EXPECT_EQ(records[i].b, i * 7);
  }
  const std::vector<TraceRecord> copied(records.begin(), records.end());
  ASSERT_EQ(copied.size(), count);
  for (std::size_t i = 0; i < count; ++i)
    ASSERT_EQ(copied[i].a, i * 3) << i;
}

TEST(TraceRecords, TraceKeepsUpToItsMaximumAndCountsOn) {
  Trace kept(10);
  Trace unkept(0);
  for (int i = 0; i < 25; ++i) {
    kept.record(Instant::from_ns(i), TraceKind::action, 1, 2, 3, 4);
    unkept.record(Instant::from_ns(i), TraceKind::action, 1, 2, 3, 4);
  }
  EXPECT_EQ(kept.records().size(), 10u);
  EXPECT_EQ(unkept.records().size(), 0u);
  EXPECT_EQ(kept.count(), 25u);
  EXPECT_TRUE(kept.truncated());
  EXPECT_EQ(kept.digest(), unkept.digest());
  EXPECT_EQ(kept.records()[9].time_ns, 9);
}

}  // namespace
}  // namespace redlock_sim
