// ReplyList's out-of-line part: everything that allocates, copies or frees a block of elements.
#include <cstdint>
#include <new>
#include <stdexcept>
#include <string>
#include <utility>

#include "lock_impls/port/reply.hpp"

namespace redlock_sim {

static_assert(alignof(Reply) <= 8, "ReplyList's elements follow an 8-byte header");

namespace {

constexpr std::size_t first_capacity = 4;

}  // namespace

// A constructor that throws runs no destructor: a copy that fails part way frees what it built.
ReplyList::ReplyList(std::initializer_list<Reply> items) {
  if (items.size() == 0) return;
  reallocate(items.size());
  try {
    for (const Reply& item : items) {
      new (this->items() + block_->size) Reply(item);
      ++block_->size;
    }
  } catch (...) {
    release(std::exchange(block_, nullptr));
    throw;
  }
}

void ReplyList::copy_from(const ReplyList& other) {
  if (other.empty()) return;
  reallocate(other.size());
  try {
    for (const Reply& item : other) {
      new (items() + block_->size) Reply(item);
      ++block_->size;
    }
  } catch (...) {
    release(std::exchange(block_, nullptr));
    throw;
  }
}

// Moves the elements into a block of `capacity` (at least their count), freeing the old one.
void ReplyList::reallocate(std::size_t capacity) {
  if (capacity > UINT32_MAX) throw std::length_error("ReplyList: more than 2^32 - 1 elements");
  auto* grown = static_cast<Block*>(::operator new(sizeof(Block) + capacity * sizeof(Reply)));
  grown->size = 0;
  grown->capacity = static_cast<uint32_t>(capacity);
  Reply* to = reinterpret_cast<Reply*>(grown + 1);
  if (block_ != nullptr) {
    Reply* from = items();
    for (uint32_t i = 0; i < block_->size; ++i) {
      new (to + i) Reply(std::move(from[i]));
    }
    grown->size = block_->size;
    release(block_);
  }
  block_ = grown;
}

void ReplyList::push_back_slow(Reply&& item) {
  // Taken before growing: `item` may be one of this list's elements.
  Reply taken(std::move(item));
  const std::size_t old_capacity = capacity();
  reallocate(old_capacity < first_capacity ? first_capacity : 2 * old_capacity);
  new (items() + block_->size) Reply(std::move(taken));
  ++block_->size;
}

void ReplyList::out_of_range(std::size_t i, std::size_t size) {
  throw std::out_of_range("ReplyList::at: index " + std::to_string(i) + " >= size " +
                          std::to_string(size));
}

void ReplyList::release(Block* block) {
  Reply* elements = reinterpret_cast<Reply*>(block + 1);
  for (uint32_t i = 0; i < block->size; ++i) {
    elements[i].~Reply();
  }
  ::operator delete(block);
}

}  // namespace redlock_sim
