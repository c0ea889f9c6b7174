// A Redis command and its RESP2 reply, as the lock code sees them.
//
// The same types travel through the simulated network and come back from the real backend, so
// lock code never knows which one it talks to.
#pragma once

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <new>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace redlock_sim {

// argv exactly as sent on the wire: command name first, every argument a binary-safe string.
using Command = std::vector<std::string>;

// Builds a command from any string-like arguments. Use it instead of `Command{"GET", key}` inside
// a co_await expression: g++ 12 rejects braced initializer_list temporaries there ("array used as
// initializer").
template <typename... Args>
Command make_command(Args&&... args) {
  Command command;
  command.reserve(sizeof...(args));
  (command.emplace_back(std::forward<Args>(args)), ...);
  return command;
}

enum class ReplyType : uint8_t {
  status,     // +OK
  error,      // -ERR ...
  integer,    // :1
  bulk,       // $3 foo
  nil,        // $-1 (null bulk string)
  array,      // *2 ...
  nil_array,  // *-1 (null array)
};

struct Reply;

// The elements of an array reply: the subset of std::vector<Reply> the code uses, in one pointer.
// Nearly every reply has no elements, and std::vector<Reply>'s destructor, being recursive, is
// never inlined: it cost a call per reply destroyed (3.5 % of an exploration's instructions).
// Here the destructor, moves and copies of an empty list are inline and test one pointer; the
// block (a header, then the elements) is allocated, copied and freed out of line.
class ReplyList {
 public:
  using value_type = Reply;
  using size_type = std::size_t;
  using iterator = Reply*;
  using const_iterator = const Reply*;

  ReplyList() noexcept = default;
  ReplyList(std::initializer_list<Reply> items);
  ReplyList(const ReplyList& other) {
    if (other.block_ != nullptr) copy_from(other);
  }
  ReplyList(ReplyList&& other) noexcept : block_(std::exchange(other.block_, nullptr)) {}
  ReplyList& operator=(const ReplyList& other) {
    if (this != &other) {
      ReplyList copy(other);
      std::swap(block_, copy.block_);
    }
    return *this;
  }
  // Takes the other's block before freeing its own, so that assigning from one of its own
  // elements (or itself) is safe.
  ReplyList& operator=(ReplyList&& other) noexcept {
    Block* old = std::exchange(block_, std::exchange(other.block_, nullptr));
    if (old != nullptr) release(old);
    return *this;
  }
  ~ReplyList() {
    if (block_ != nullptr) release(block_);
  }

  std::size_t size() const { return block_ != nullptr ? block_->size : 0; }
  bool empty() const { return block_ == nullptr || block_->size == 0; }
  std::size_t capacity() const { return block_ != nullptr ? block_->capacity : 0; }
  void reserve(std::size_t count) {
    if (count > capacity()) reallocate(count);
  }
  void push_back(const Reply& item);
  void push_back(Reply&& item);

  Reply* begin() { return items(); }
  Reply* end();
  const Reply* begin() const { return items(); }
  const Reply* end() const;
  Reply& operator[](std::size_t i);
  const Reply& operator[](std::size_t i) const;
  Reply& front() { return (*this)[0]; }
  const Reply& front() const { return (*this)[0]; }
  const Reply& at(std::size_t i) const;

  friend bool operator==(const ReplyList& a, const ReplyList& b);

 private:
  // The elements follow the header in the same allocation.
  struct alignas(8) Block {
    uint32_t size;
    uint32_t capacity;
  };

  Reply* items() const {
    return block_ != nullptr ? reinterpret_cast<Reply*>(block_ + 1) : nullptr;
  }
  void copy_from(const ReplyList& other);
  void reallocate(std::size_t capacity);
  void push_back_slow(Reply&& item);
  [[noreturn]] static void out_of_range(std::size_t i, std::size_t size);
  static void release(Block* block);

  Block* block_ = nullptr;
};

struct Reply {
  ReplyType type = ReplyType::nil;
  std::string text;  // status text, error text (without the leading '-'), or bulk bytes
  int64_t integer = 0;
  ReplyList elements;

  static Reply status(std::string_view s) {
    return Reply{ReplyType::status, std::string(s), 0, {}};
  }
  static Reply ok() { return status("OK"); }
  static Reply error(std::string_view s) { return Reply{ReplyType::error, std::string(s), 0, {}}; }
  static Reply integer_reply(int64_t v) { return Reply{ReplyType::integer, {}, v, {}}; }
  static Reply bulk(std::string_view s) { return Reply{ReplyType::bulk, std::string(s), 0, {}}; }
  static Reply nil_reply() { return Reply{}; }
  static Reply nil_array_reply() { return Reply{ReplyType::nil_array, {}, 0, {}}; }
  static Reply array(ReplyList items) { return Reply{ReplyType::array, {}, 0, std::move(items)}; }

  bool is_ok() const { return type == ReplyType::status && text == "OK"; }
  bool is_error() const { return type == ReplyType::error; }
  bool is_nil() const { return type == ReplyType::nil || type == ReplyType::nil_array; }
  bool is_integer(int64_t v) const { return type == ReplyType::integer && integer == v; }

  friend bool operator==(const Reply&, const Reply&) = default;
};

// ReplyList's members that need a complete Reply.

inline Reply* ReplyList::end() {
  return block_ != nullptr ? items() + block_->size : nullptr;
}
inline const Reply* ReplyList::end() const {
  return block_ != nullptr ? items() + block_->size : nullptr;
}
inline Reply& ReplyList::operator[](std::size_t i) {
  return items()[i];
}
inline const Reply& ReplyList::operator[](std::size_t i) const {
  return items()[i];
}
inline const Reply& ReplyList::at(std::size_t i) const {
  if (i >= size()) out_of_range(i, size());
  return items()[i];
}
inline void ReplyList::push_back(Reply&& item) {
  if (block_ == nullptr || block_->size == block_->capacity) return push_back_slow(std::move(item));
  new (items() + block_->size) Reply(std::move(item));
  ++block_->size;
}
// Copied first: `item` may be one of this list's elements, which growing would move.
inline void ReplyList::push_back(const Reply& item) {
  push_back(Reply(item));
}
inline bool operator==(const ReplyList& a, const ReplyList& b) {
  const std::size_t count = a.size();
  if (count != b.size()) return false;
  for (std::size_t i = 0; i < count; ++i) {
    if (!(a[i] == b[i])) return false;
  }
  return true;
}

// How one request ended, from the caller's side. `unknown` means the caller stopped waiting: the
// command may or may not have run on the server, now or later (FoundationDB's
// commit_unknown_result). `refused` means it certainly did not run.
enum class OutcomeKind : uint8_t { ok, refused, unknown };

struct Outcome {
  OutcomeKind kind = OutcomeKind::unknown;
  Reply reply;  // meaningful only when kind == ok; may itself be an error reply

  bool replied() const { return kind == OutcomeKind::ok; }
  friend bool operator==(const Outcome&, const Outcome&) = default;
};

// Renders a reply for logs and traces: `OK`, `(nil)`, `(integer) 1`, `"v"`, `(error) ERR ...`.
std::string describe(const Reply& reply);
std::string describe(const Command& command);

}  // namespace redlock_sim
