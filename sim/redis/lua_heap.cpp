#include "sim/redis/lua_heap.hpp"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <new>

namespace redlock_sim {

LuaHeap::~LuaHeap() {
  for (char* chunk : chunks_)
    ::operator delete (chunk, std::align_val_t{granule_bytes});
}

void* LuaHeap::allocate_small(std::size_t size_class) {
  if (FreeBlock* head = free_[size_class]) {
    free_[size_class] = head->next;
    return head;
  }
  const std::size_t size = (size_class + 1) * granule_bytes;
  if (static_cast<std::size_t>(bump_end_ - bump_) < size) {
    // The rest of the chunk (less than one block of this class) goes to the free lists of the
    // classes it fits, so nothing is lost.
    while (bump_end_ - bump_ >= static_cast<std::ptrdiff_t>(granule_bytes)) {
      const std::size_t rest_class =
          static_cast<std::size_t>(bump_end_ - bump_) / granule_bytes - 1;  // rounded down
      const std::size_t rest_size = (rest_class + 1) * granule_bytes;
      free_small(bump_, rest_class);
      bump_ += rest_size;
    }
    char* chunk = static_cast<char*>(
        ::operator new (chunk_bytes_size, std::align_val_t{granule_bytes}, std::nothrow));
    if (chunk == nullptr) return nullptr;
    chunks_.push_back(chunk);
    bump_ = chunk;
    bump_end_ = chunk + chunk_bytes_size;
  }
  void* block = bump_;
  bump_ += size;
  return block;
}

void* LuaHeap::reallocate_slowly(void* block, std::size_t old_size, std::size_t new_size) {
  if (!pooled) {
    if (new_size == 0) {
      std::free(block);
      return nullptr;
    }
    return std::realloc(block, new_size);
  }
  const bool old_small = block != nullptr && old_size <= small_bytes_max;
  if (new_size == 0) {
    if (block == nullptr) return nullptr;
    if (old_small) {
      free_small(block, class_of(old_size));
    } else {
      std::free(block);
    }
    return nullptr;
  }
  if (new_size > small_bytes_max) {
    if (block == nullptr || !old_small) return std::realloc(block, new_size);
    void* grown = std::malloc(new_size);
    if (grown == nullptr) return nullptr;
    std::memcpy(grown, block, old_size);
    free_small(block, class_of(old_size));
    return grown;
  }
  const std::size_t new_class = class_of(new_size);
  if (old_small && class_of(old_size) == new_class) return block;  // it already fits
  void* moved = allocate_small(new_class);
  if (moved == nullptr) return nullptr;
  if (block != nullptr) {
    std::memcpy(moved, block, std::min(old_size, new_size));
    if (old_small) {
      free_small(block, class_of(old_size));
    } else {
      std::free(block);
    }
  }
  return moved;
}

}  // namespace redlock_sim
