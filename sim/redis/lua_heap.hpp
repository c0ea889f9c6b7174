// The memory of one Lua state: small blocks from size-class free lists carved out of large
// chunks, bigger ones from malloc. A script run allocates and frees a few thousand small blocks
// (strings, tables, closures, the KEYS/ARGV arrays) and closing a state frees every one of them;
// through malloc/realloc/free that was about 6 % of an exploration's instructions.
//
// What the state sees does not change: the allocator above it (scripting.cpp) still counts the
// sizes Lua asks for and refuses past the budget before asking this heap, and Lua's own garbage
// collector paces itself on the same counts. Only the addresses differ, which were never the
// same from one machine or allocator to the next.
#pragma once

#include <array>
#include <cstddef>
#include <vector>

namespace redlock_sim {

class LuaHeap {
 public:
  LuaHeap() = default;
  ~LuaHeap();
  LuaHeap(const LuaHeap&) = delete;
  LuaHeap& operator=(const LuaHeap&) = delete;

  // lua_Alloc's contract with a known `old_size` (Lua 5.1 passes the block's exact size, 0 for
  // no block): new_size 0 frees; otherwise returns a block of new_size bytes holding the first
  // min(old_size, new_size) bytes of `block`, or nullptr (then `block` is untouched).
  // The two calls most of Lua's are (a new small block, a small block freed) are inline.
  void* reallocate(void* block, std::size_t old_size, std::size_t new_size) {
    if (pooled) {
      if (new_size == 0 && block != nullptr && old_size <= small_bytes_max) {
        free_small(block, class_of(old_size));
        return nullptr;
      }
      if (block == nullptr && new_size != 0 && new_size <= small_bytes_max) {
        const std::size_t size_class = class_of(new_size);
        if (FreeBlock* head = free_[size_class]) {
          free_[size_class] = head->next;
          return head;
        }
      }
    }
    return reallocate_slowly(block, old_size, new_size);
  }

  // Bytes taken from the system for small blocks (chunks), for tests.
  std::size_t chunk_bytes() const { return chunks_.size() * chunk_bytes_size; }

  static constexpr std::size_t granule_bytes = 16;
  static constexpr std::size_t small_bytes_max = 512;
  static constexpr std::size_t chunk_bytes_size = 32 * 1024;
  // Under AddressSanitizer every block goes to malloc, so that a use after free inside Lua or
  // the model's C functions is still reported.
#if defined(__SANITIZE_ADDRESS__)
  static constexpr bool pooled = false;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
  static constexpr bool pooled = false;
#else
  static constexpr bool pooled = true;
#endif
#else
  static constexpr bool pooled = true;
#endif

 private:
  struct FreeBlock {
    FreeBlock* next;
  };
  static constexpr std::size_t class_count = small_bytes_max / granule_bytes;
  static std::size_t class_of(std::size_t size) {
    return (size - 1) / granule_bytes;
  }
  void* reallocate_slowly(void* block, std::size_t old_size, std::size_t new_size);
  void* allocate_small(std::size_t size_class);
  void free_small(void* block, std::size_t size_class) {
    auto* free_block = static_cast<FreeBlock*>(block);
    free_block->next = free_[size_class];
    free_[size_class] = free_block;
  }

  std::array<FreeBlock*, class_count> free_{};
  std::vector<char*> chunks_;
  char* bump_ = nullptr;  // the unused tail of the newest chunk
  char* bump_end_ = nullptr;
};

}  // namespace redlock_sim
