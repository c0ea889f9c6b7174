// Shards of a sweep: shard K of N (0-based, as Slurm's SLURM_ARRAY_TASK_ID over --array=0-(N-1)
// and Kubernetes' JOB_COMPLETION_INDEX count) runs its share of the sweep's items: the seeds of
// `explore`, the cells of `matrix`, the points of a grid. Pure arithmetic, so every machine of a
// cluster computes the same shares, and the merge can check a shard did what it was meant to.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace redlock_sim {

struct Shard {
  uint64_t index = 0;  // K, in [0, count)
  uint64_t count = 1;  // N
};

inline constexpr uint64_t shard_count_max = 1'000'000;

// "K/N" with 0 <= K < N <= shard_count_max, decimal digits only; nothing when malformed.
std::optional<Shard> parse_shard(const std::string& text);

// "K/N".
std::string shard_text(const Shard& shard);

// Items [begin, end) of a sweep over `total` items in order.
struct ItemRange {
  uint64_t begin = 0;
  uint64_t end = 0;
  uint64_t size() const { return end - begin; }
};

// A contiguous block: [floor(K * total / N), floor((K + 1) * total / N)). Sizes differ by at most
// one, the blocks of K = 0..N-1 tile [0, total) in order, and any total up to 2^64 - 1 is exact.
// For items of the same expected cost (explore's seeds: every seed draws its plan the same way).
ItemRange shard_block(uint64_t total, const Shard& shard);

// Round robin: item i belongs to shard i mod N. For items of unequal cost in a fixed order
// (matrix cells: a row of five-node locks costs more than a row of single-node ones), so each
// shard gets a slice of every row.
bool shard_owns(uint64_t item, const Shard& shard);

}  // namespace redlock_sim
