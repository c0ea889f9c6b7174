// The memory of one Lua state: small blocks from size-class free lists carved out of large
// chunks, bigger ones from malloc. A script run allocates and frees a few thousand small blocks
// (strings, tables, closures, the KEYS/ARGV arrays) and closing a state frees every one of them;
// through malloc/realloc/free that was about 6 % of an exploration's instructions.
//
// What the state sees does not change: the allocator above it (scripting.cpp) still counts the
// sizes Lua asks for and refuses past the budget before asking this heap, and Lua's own garbage
// collector paces itself on the same counts. Only the addresses differ, which were never the
// same from one machine or allocator to the next.
//
// A heap can also keep an image of itself (snapshot) and go back to it (restore): every block
// in use at the snapshot, small or big, gets its bytes back at the same address, the free lists
// and chunk ends are as they were, and whatever was allocated since is dropped. The Lua state
// that lives in the heap is then, byte for byte, the state it was at the snapshot (the state
// pool of scripting.cpp). A big block in use at the snapshot is kept until the heap goes, even
// if Lua frees or moves it meanwhile, so the restored state's pointers to it stay good.
#pragma once

#include <array>
#include <cstddef>
#include <vector>

#include "sim/kernel/sanitizer.hpp"

namespace redlock_sim {

class LuaHeap {
 public:
  // `images`: the heap may take a snapshot; its big blocks then carry a header that lists them
  // (32 bytes more each, which can move a block to the allocator's next size class). Without,
  // big blocks go to malloc as they are.
  explicit LuaHeap(bool images = false) : images_(images) {}
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

  // Keeps an image of every block in use (once per heap; only with `pooled` and `images`).
  void snapshot();
  bool has_snapshot() const { return snapshot_taken_; }
  // Puts every block of the snapshot back, byte for byte, and frees what came since.
  void restore();
  // Bytes the snapshot holds (small chunks in use and big blocks), for tests and docs.
  std::size_t snapshot_bytes() const { return small_image_.size() + big_image_.size(); }

  // A size to watch for: while `recording`, the size of the largest new big block is noted;
  // after it, watched_size_seen() tells whether a new big block of that size was allocated since
  // the last snapshot() or restore() (scripting.cpp: a cjson instance's config).
  void record_big_sizes(bool recording) { recording_ = recording; }
  bool watched_size_seen() const { return watched_size_seen_; }

  static constexpr std::size_t granule_bytes = 16;
  static constexpr std::size_t small_bytes_max = 512;
  static constexpr std::size_t chunk_bytes_size = 32 * 1024;
  // Under AddressSanitizer every block goes to malloc, so that a use after free inside Lua or
  // the model's C functions is still reported.
#if defined(REDLOCK_UNDER_ASAN)
  static constexpr bool pooled = false;
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

  // A block above small_bytes_max sits behind this header, in a list of the blocks in use.
  struct alignas(granule_bytes) BigBlock {
    BigBlock* next;
    BigBlock* previous;
    std::size_t size;
    bool pinned;  // in use at the snapshot: freed only with the heap
  };
  static BigBlock* header_of(void* block) {
    return static_cast<BigBlock*>(block) - 1;
  }
  void* allocate_big(std::size_t size);
  void free_big(void* block);
  void* reallocate_big(void* block, std::size_t new_size);
  void link_big(BigBlock* header);
  void unlink_big(BigBlock* header);

  const bool images_;
  std::array<FreeBlock*, class_count> free_{};
  std::vector<char*> chunks_;  // the first chunks_in_use_ hold blocks; the rest are spare
  std::size_t chunks_in_use_ = 0;
  char* bump_ = nullptr;  // the unused tail of the newest chunk in use
  char* bump_end_ = nullptr;
  BigBlock* big_ = nullptr;  // big blocks in use
  bool recording_ = false;
  bool watched_size_seen_ = false;
  std::size_t watched_size_ = 0;

  // The snapshot: the free lists and chunk ends, the chunks' bytes, the big blocks and theirs.
  bool snapshot_taken_ = false;
  std::array<FreeBlock*, class_count> snapshot_free_{};
  std::size_t snapshot_chunks_in_use_ = 0;
  char* snapshot_bump_ = nullptr;
  char* snapshot_bump_end_ = nullptr;
  std::vector<char> small_image_;
  std::vector<BigBlock*> pinned_;  // in list order at the snapshot
  std::vector<char> big_image_;
};

}  // namespace redlock_sim
