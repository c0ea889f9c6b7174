// The Lua states' heap (sim/redis/lua_heap) keeps what Lua wrote through every resize, reuses
// freed blocks of a size class before carving new ones, and serves a whole Lua state (open, run a
// script that churns strings and tables, close) with the same byte count as before.
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

TEST(LuaHeap, ResizesKeepTheContentAcrossClassesAndIntoMalloc) {
  LuaHeap heap;
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
  Counted on_malloc;
  LuaHeap heap;
  Counted on_heap{.heap = &heap};
  EXPECT_EQ(run_state(on_heap), run_state(on_malloc));
  EXPECT_EQ(on_heap.peak, on_malloc.peak);
}

}  // namespace
}  // namespace redlock_sim
