// The compact trace: every event of a run as a fixed-size record, and a running digest over all
// of them. Two runs of the same scenario and seed must produce the same digest; the records feed
// the timeline and the reports.
#pragma once

#include <cstddef>
#include <cstdint>
#include <iterator>
#include <memory>
#include <string>
#include <vector>

#include "lock_impls/port/time.hpp"

#include "sim/kernel/sanitizer.hpp"

// Streamed stores are x86-64's, and left out of AddressSanitizer builds, which check plain
// stores only.
#if defined(__x86_64__) && !defined(REDLOCK_UNDER_ASAN)
#define REDLOCK_STREAM_TRACE_RECORDS 1
#include <emmintrin.h>
#endif

namespace redlock_sim {

enum class TraceKind : uint8_t {
  message_sent,       // process -> peer; a = message id, b = delivery true time (ns)
  message_dropped,    // process -> peer; a = message id, b = DropReason
  message_delivered,  // peer -> process; a = message id, b = content hash
  timer_fired,     // process; a = timer slot, b = generation (never a tag: tags may be addresses)
  event_deferred,  // process was paused; a = event payload
  process_paused,
  process_resumed,
  process_crashed,
  process_restarted,
  clock_rate_set,  // a = numerator, b = denominator
  clock_stepped,   // a = delta ns (two's complement)
  action,          // a scheduled action ran; a = action index
  note,            // a model's annotation; a, b model-defined, text in notes()
};

const char* trace_kind_name(TraceKind kind);

struct TraceRecord {
  int64_t time_ns;
  uint64_t a;
  uint64_t b;
  uint32_t process;
  uint32_t peer;
  TraceKind kind;
};
static_assert(sizeof(TraceRecord) == 40 && offsetof(TraceRecord, a) == 8 &&
              offsetof(TraceRecord, b) == 16 && offsetof(TraceRecord, process) == 24 &&
              offsetof(TraceRecord, peer) == 28 && offsetof(TraceRecord, kind) == 32);

// A record is written once and read after the run, if ever: on x86-64 it is streamed past the
// caches (five 8-byte non-temporal stores, the padding after `kind` written as zeros) instead of
// pulling a line of fresh memory into them for every 1.6 records. The writing thread reads its
// own streamed stores in program order, and it is the one that reads them (World::result copies
// them into the run's result before anything is handed to another thread); Simulator::run ends
// with publish_streamed_records(), an sfence, which with the hand-off's own synchronisation
// would also let another thread read them after run() returned.
inline void store_record(TraceRecord* to, const TraceRecord& record) {
#if defined(REDLOCK_STREAM_TRACE_RECORDS)
  auto* out = reinterpret_cast<long long*>(to);
  _mm_stream_si64(out, record.time_ns);
  _mm_stream_si64(out + 1, static_cast<long long>(record.a));
  _mm_stream_si64(out + 2, static_cast<long long>(record.b));
  _mm_stream_si64(out + 3, static_cast<long long>(record.process | (uint64_t{record.peer} << 32)));
  _mm_stream_si64(out + 4, static_cast<long long>(record.kind));
#else
  *to = record;
#endif
}

inline void publish_streamed_records() {
#if defined(REDLOCK_STREAM_TRACE_RECORDS)
  _mm_sfence();
#endif
}

// The kept records, in chunks of 4096: growing never copies what is recorded (as the std::deque
// it replaces), and appending is a store and two increments. A deque's push_back was a call of
// about 34 instructions per event in the kernel benchmark.
class TraceRecords {
 public:
  static constexpr std::size_t chunk_shift = 12;
  static constexpr std::size_t chunk_records = std::size_t{1} << chunk_shift;

  std::size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  const TraceRecord& operator[](std::size_t index) const {
    return chunks_[index >> chunk_shift][index & (chunk_records - 1)];
  }
  void push_back(const TraceRecord& record) {
    if (next_ == end_) add_chunk();
    store_record(next_++, record);
    ++size_;
  }

  class const_iterator {
   public:
    using iterator_category = std::forward_iterator_tag;
    using value_type = TraceRecord;
    using difference_type = std::ptrdiff_t;
    using pointer = const TraceRecord*;
    using reference = const TraceRecord&;
    const_iterator() = default;
    const_iterator(const TraceRecords* records, std::size_t index)
        : records_(records), index_(index) {}
    reference operator*() const { return (*records_)[index_]; }
    pointer operator->() const { return &(*records_)[index_]; }
    const_iterator& operator++() {
      ++index_;
      return *this;
    }
    const_iterator operator++(int) {
      const_iterator before = *this;
      ++index_;
      return before;
    }
    friend bool operator==(const const_iterator& a, const const_iterator& b) {
      return a.index_ == b.index_;
    }

   private:
    const TraceRecords* records_ = nullptr;
    std::size_t index_ = 0;
  };
  const_iterator begin() const { return {this, 0}; }
  const_iterator end() const { return {this, size_}; }

 private:
  void add_chunk() {
    // Default-initialised: the records are written before they are read.
    chunks_.push_back(std::unique_ptr<TraceRecord[]>(new TraceRecord[chunk_records]));
    next_ = chunks_.back().get();
    end_ = next_ + chunk_records;
  }
  std::vector<std::unique_ptr<TraceRecord[]>> chunks_;
  TraceRecord* next_ = nullptr;
  TraceRecord* end_ = nullptr;
  std::size_t size_ = 0;
};

class Trace {
 public:
  explicit Trace(std::size_t records_max = 1'000'000) : records_max_(records_max) {}

  // Off, a run keeps no trace at all: with no records to keep (records_max 0), nothing is
  // recorded, the digest and count stay as they start (for runs whose digest nobody reads, such
  // as exploration's: mixing four words into it was 2.5 % of such a run).
  void keep_digest(bool on) { on_ = on || records_max_ > 0; }
  void record(Instant time, TraceKind kind, uint32_t process, uint32_t peer, uint64_t a,
              uint64_t b) {
    if (!on_) return;
    mix(static_cast<uint64_t>(time.ns()));
    mix(static_cast<uint64_t>(kind) | (static_cast<uint64_t>(process) << 8) |
        (static_cast<uint64_t>(peer) << 36));
    mix(a);
    mix(b);
    ++count_;
    if (records_.size() < records_max_) {
      records_.push_back({time.ns(), a, b, process, peer, kind});
    }
  }
  // An annotation with text (kept only while records are kept); the text enters the digest.
  void note(Instant time, uint32_t process, std::string text, uint64_t a = 0, uint64_t b = 0);

  uint64_t digest() const;
  std::string digest_hex() const;
  uint64_t count() const { return count_; }
  bool truncated() const { return count_ > records_.size(); }
  const TraceRecords& records() const { return records_; }
  const std::vector<std::string>& notes() const { return notes_; }
  std::size_t notes_bytes() const { return notes_bytes_; }  // their total length

 private:
  void mix(uint64_t value) {
    state_ ^= value;
    state_ *= 0x9e3779b97f4a7c15ULL;
    state_ ^= state_ >> 29;
  }
  std::size_t records_max_;
  bool on_ = true;
  uint64_t state_ = 0x243f6a8885a308d3ULL;
  uint64_t count_ = 0;
  TraceRecords records_;
  std::vector<std::string> notes_;
  std::size_t notes_bytes_ = 0;
};

}  // namespace redlock_sim
