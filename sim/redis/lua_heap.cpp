#include "sim/redis/lua_heap.hpp"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <new>

#include "sim/kernel/assert.hpp"

namespace redlock_sim {

LuaHeap::~LuaHeap() {
  for (BigBlock* header = big_; header != nullptr;) {
    BigBlock* next = header->next;
    if (!header->pinned) std::free(header);
    header = next;
  }
  for (BigBlock* header : pinned_)
    std::free(header);
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
    if (chunks_in_use_ == chunks_.size()) {  // no spare chunk left by a restore
      char* chunk = static_cast<char*>(
          ::operator new (chunk_bytes_size, std::align_val_t{granule_bytes}, std::nothrow));
      if (chunk == nullptr) return nullptr;
      chunks_.push_back(chunk);
    }
    bump_ = chunks_[chunks_in_use_++];
    bump_end_ = bump_ + chunk_bytes_size;
  }
  void* block = bump_;
  bump_ += size;
  return block;
}

void LuaHeap::link_big(BigBlock* header) {
  header->previous = nullptr;
  header->next = big_;
  if (big_ != nullptr) big_->previous = header;
  big_ = header;
}

void LuaHeap::unlink_big(BigBlock* header) {
  if (header->previous != nullptr) {
    header->previous->next = header->next;
  } else {
    big_ = header->next;
  }
  if (header->next != nullptr) header->next->previous = header->previous;
}

void* LuaHeap::allocate_big(std::size_t size) {
  if (recording_) {
    watched_size_ = std::max(watched_size_, size);
  } else if (size == watched_size_) {
    watched_size_seen_ = true;
  }
  if (!images_) return std::malloc(size);
  auto* header = static_cast<BigBlock*>(std::malloc(sizeof(BigBlock) + size));
  if (header == nullptr) return nullptr;
  header->size = size;
  header->pinned = false;
  link_big(header);
  return header + 1;
}

void LuaHeap::free_big(void* block) {
  if (!images_) {
    std::free(block);
    return;
  }
  BigBlock* header = header_of(block);
  unlink_big(header);
  if (!header->pinned) std::free(header);  // a pinned one waits for restore() or the heap's end
}

void* LuaHeap::reallocate_big(void* block, std::size_t new_size) {
  if (!images_) return std::realloc(block, new_size);
  BigBlock* header = header_of(block);
  if (header->pinned) {
    void* moved = allocate_big(new_size);
    if (moved == nullptr) return nullptr;
    std::memcpy(moved, block, std::min(header->size, new_size));
    free_big(block);
    return moved;
  }
  unlink_big(header);
  auto* grown = static_cast<BigBlock*>(std::realloc(header, sizeof(BigBlock) + new_size));
  if (grown == nullptr) {
    link_big(header);
    return nullptr;
  }
  grown->size = new_size;
  link_big(grown);
  return grown + 1;
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
      free_big(block);
    }
    return nullptr;
  }
  if (new_size > small_bytes_max) {
    if (block == nullptr) return allocate_big(new_size);
    if (!old_small) return reallocate_big(block, new_size);
    void* grown = allocate_big(new_size);
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
      free_big(block);
    }
  }
  return moved;
}

void LuaHeap::snapshot() {
  SIM_ASSERT(pooled && images_ && !snapshot_taken_);
  snapshot_taken_ = true;
  watched_size_seen_ = false;
  snapshot_free_ = free_;
  snapshot_chunks_in_use_ = chunks_in_use_;
  snapshot_bump_ = bump_;
  snapshot_bump_end_ = bump_end_;
  small_image_.resize(chunks_in_use_ * chunk_bytes_size);
  for (std::size_t i = 0; i < chunks_in_use_; ++i)
    std::memcpy(small_image_.data() + i * chunk_bytes_size, chunks_[i], chunk_bytes_size);
  std::size_t big_bytes = 0;
  for (BigBlock* header = big_; header != nullptr; header = header->next) {
    header->pinned = true;
    pinned_.push_back(header);
    big_bytes += header->size;
  }
  big_image_.resize(big_bytes);
  char* at = big_image_.data();
  for (BigBlock* header : pinned_) {
    std::memcpy(at, header + 1, header->size);
    at += header->size;
  }
}

void LuaHeap::restore() {
  SIM_ASSERT(snapshot_taken_);
  watched_size_seen_ = false;
  for (BigBlock* header = big_; header != nullptr;) {
    BigBlock* next = header->next;
    if (!header->pinned) std::free(header);
    header = next;
  }
  big_ = nullptr;
  const char* at = big_image_.data();
  for (auto pinned = pinned_.rbegin(); pinned != pinned_.rend(); ++pinned) {
    link_big(*pinned);  // in reverse, so the list is in its snapshot order again
  }
  for (BigBlock* header : pinned_) {
    std::memcpy(header + 1, at, header->size);
    at += header->size;
  }
  for (std::size_t i = 0; i < snapshot_chunks_in_use_; ++i)
    std::memcpy(chunks_[i], small_image_.data() + i * chunk_bytes_size, chunk_bytes_size);
  chunks_in_use_ = snapshot_chunks_in_use_;
  free_ = snapshot_free_;
  bump_ = snapshot_bump_;
  bump_end_ = snapshot_bump_end_;
}

}  // namespace redlock_sim
