// The Lua states' heap (sim/redis/lua_heap) keeps what Lua wrote through every resize, reuses
// freed blocks of a size class before carving new ones, and serves a whole Lua state (open, run a
// script that churns strings and tables, close) with the same byte count as before; restored to a
// snapshot, every block is back at its address with its bytes, and a Lua state in it runs a
// script exactly as it did the first time.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "sim/redis/lua_heap.hpp"

extern "C" {
#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>
}

namespace redlock_sim {
namespace {

void fill(void* block, std::size_t size, uint8_t seed) {
  auto* bytes = static_cast<uint8_t*>(block);
  for (std::size_t i = 0; i < size; ++i)
    bytes[i] = static_cast<uint8_t>(seed + i * 7);
}
bool holds(const void* block, std::size_t size, uint8_t seed) {
  const auto* bytes = static_cast<const uint8_t*>(block);
  for (std::size_t i = 0; i < size; ++i)
    if (bytes[i] != static_cast<uint8_t>(seed + i * 7)) return false;
  return true;
}

void resize_through_classes(LuaHeap& heap) {
  std::size_t size = 1;
  void* block = heap.reallocate(nullptr, 0, size);
  fill(block, size, 3);
  for (const std::size_t next : {15, 16, 17, 100, 512, 513, 4000, 600, 512, 40, 8, 1}) {
    void* moved = heap.reallocate(block, size, next);
    ASSERT_NE(moved, nullptr);
    ASSERT_TRUE(holds(moved, std::min(size, next), 3)) << size << " -> " << next;
    fill(moved, next, 3);
    block = moved;
    size = next;
  }
  EXPECT_EQ(heap.reallocate(block, size, 0), nullptr);
}

TEST(LuaHeap, ResizesKeepTheContentAcrossClassesAndIntoMalloc) {
  for (const bool images : {false, true}) {
    LuaHeap heap(images);
    resize_through_classes(heap);
  }
}

TEST(LuaHeap, FreedBlocksAreReusedBeforeNewChunks) {
  LuaHeap heap;
  std::vector<void*> blocks;
  for (int i = 0; i < 1000; ++i)
    blocks.push_back(heap.reallocate(nullptr, 0, 48));
  const std::size_t chunks = heap.chunk_bytes();
  for (void* block : blocks)
    heap.reallocate(block, 48, 0);
  for (int i = 0; i < 1000; ++i)
    blocks[static_cast<std::size_t>(i)] = heap.reallocate(nullptr, 0, 40);  // same class
  EXPECT_EQ(heap.chunk_bytes(), chunks);
  // Blocks never overlap: each keeps its own pattern.
  for (std::size_t i = 0; i < blocks.size(); ++i)
    fill(blocks[i], 40, static_cast<uint8_t>(i));
  for (std::size_t i = 0; i < blocks.size(); ++i)
    EXPECT_TRUE(holds(blocks[i], 40, static_cast<uint8_t>(i)));
  for (void* block : blocks)
    heap.reallocate(block, 40, 0);
}

struct Counted {
  LuaHeap* heap = nullptr;  // nullptr: the C library's realloc/free
  std::size_t bytes = 0;
  std::size_t peak = 0;
};
void* counted_allocate(void* user_data, void* block, std::size_t old_size, std::size_t new_size) {
  Counted& counted = *static_cast<Counted*>(user_data);
  counted.bytes = counted.bytes - old_size + new_size;
  counted.peak = std::max(counted.peak, counted.bytes);
  if (counted.heap != nullptr) return counted.heap->reallocate(block, old_size, new_size);
  if (new_size == 0) {
    std::free(block);
    return nullptr;
  }
  return std::realloc(block, new_size);
}

// A script's results and Lua's own memory count (collectgarbage("count"), which paces its
// collector) are the same on this heap as on malloc.
std::string run_state(Counted& counted) {
  lua_State* lua = lua_newstate(counted_allocate, &counted);
  luaL_openlibs(lua);
  const char* script = R"(
    local t, out = {}, {}
    for i = 1, 3000 do
      t[i] = string.rep("x", i % 700) .. i
      if i % 3 == 0 then t[i - 1] = nil end
      if i % 500 == 0 then out[#out + 1] = tostring(collectgarbage("count")) end
    end
    local n = 0
    for k, v in pairs(t) do n = n + #v end
    return table.concat(out, ",") .. ";" .. n)";
  EXPECT_EQ(luaL_dostring(lua, script), 0);
  std::string result = lua_tostring(lua, -1);
  lua_close(lua);
  EXPECT_EQ(counted.bytes, 0u);
  return result;
}

TEST(LuaHeap, ALuaStateRunsAndCountsTheSameAsOnMalloc) {
  for (const bool images : {false, true}) {
    Counted on_malloc;
    LuaHeap heap(images);
    Counted on_heap{.heap = &heap};
    EXPECT_EQ(run_state(on_heap), run_state(on_malloc));
    EXPECT_EQ(on_heap.peak, on_malloc.peak);
  }
}

// Blocks alive at the snapshot, small and big, are back at their addresses with their bytes,
// whatever was freed, moved or allocated since; allocation then goes on as after the snapshot.
TEST(LuaHeap, RestoreBringsBackEveryBlockOfTheSnapshot) {
  if (!LuaHeap::pooled) GTEST_SKIP() << "no snapshots under AddressSanitizer";
  LuaHeap heap(/*images=*/true);
  void* small = heap.reallocate(nullptr, 0, 48);
  void* big = heap.reallocate(nullptr, 0, 4000);
  void* grown = heap.reallocate(nullptr, 0, 200);
  fill(small, 48, 1);
  fill(big, 4000, 2);
  fill(grown, 200, 3);
  heap.snapshot();
  void* next_small = heap.reallocate(nullptr, 0, 48);
  void* next_big = heap.reallocate(nullptr, 0, 4000);
  heap.reallocate(small, 48, 0);
  void* moved = heap.reallocate(big, 4000, 9000);  // big was pinned: it moves, the original stays
  EXPECT_NE(moved, big);
  fill(moved, 9000, 9);
  heap.reallocate(grown, 200, 1000);  // small into big
  for (int i = 0; i < 3000; ++i)
    fill(heap.reallocate(nullptr, 0, 64), 64, 7);  // past the snapshot's chunks
  heap.restore();
  EXPECT_TRUE(holds(small, 48, 1));
  EXPECT_TRUE(holds(big, 4000, 2));
  EXPECT_TRUE(holds(grown, 200, 3));
  EXPECT_EQ(heap.reallocate(nullptr, 0, 48), next_small);
  void* again_big = heap.reallocate(nullptr, 0, 4000);
  EXPECT_NE(again_big, nullptr);
  EXPECT_TRUE(holds(heap.reallocate(big, 4000, 4000), 4000, 2));
  heap.reallocate(again_big, 4000, 0);
  (void)next_big;
}

// A new big block of the largest size noted while recording is told apart from others, until
// the next restore.
TEST(LuaHeap, TheWatchedSizeIsSeenUntilTheNextRestore) {
  if (!LuaHeap::pooled) GTEST_SKIP() << "no snapshots under AddressSanitizer";
  LuaHeap heap(/*images=*/true);
  heap.record_big_sizes(true);
  void* smaller = heap.reallocate(nullptr, 0, 640);
  void* noted = heap.reallocate(nullptr, 0, 1392);
  heap.record_big_sizes(false);
  heap.snapshot();
  void* other = heap.reallocate(nullptr, 0, 640);
  EXPECT_FALSE(heap.watched_size_seen());
  void* same = heap.reallocate(nullptr, 0, 1392);
  EXPECT_TRUE(heap.watched_size_seen());
  heap.reallocate(other, 640, 0);
  heap.reallocate(same, 1392, 0);
  heap.restore();
  EXPECT_FALSE(heap.watched_size_seen());
  (void)smaller;
  (void)noted;
}

// A Lua state restored to its snapshot runs a script as it did the first time: same results,
// same memory counts at every step (so its collector ran at the same points).
TEST(LuaHeap, ARestoredLuaStateRunsAsTheFirstTime) {
  if (!LuaHeap::pooled) GTEST_SKIP() << "no snapshots under AddressSanitizer";
  LuaHeap heap(/*images=*/true);
  Counted counted{.heap = &heap};
  lua_State* lua = lua_newstate(counted_allocate, &counted);
  luaL_openlibs(lua);
  heap.snapshot();
  const std::size_t bytes_at_snapshot = counted.bytes;
  const char* script = R"(
    local t, out = {}, {}
    for i = 1, 3000 do
      t[i] = string.rep("x", i % 900) .. i
      if i % 3 == 0 then t[i - 1] = nil end
      if i % 250 == 0 then out[#out + 1] = tostring(collectgarbage("count")) end
    end
    return table.concat(out, ","))";
  std::vector<std::string> results;
  for (int run = 0; run < 3; ++run) {
    ASSERT_EQ(luaL_dostring(lua, script), 0);
    results.emplace_back(lua_tostring(lua, -1));
    heap.restore();
    counted.bytes = bytes_at_snapshot;
  }
  EXPECT_EQ(results[1], results[0]);
  EXPECT_EQ(results[2], results[0]);
  lua_close(lua);
  EXPECT_EQ(counted.bytes, 0u);
}

}  // namespace
}  // namespace redlock_sim
