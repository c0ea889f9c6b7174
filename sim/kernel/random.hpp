// The in-tree PRNG: SplitMix64 to seed, xoshiro256** to draw, and our own bounded-integer and
// probability helpers (the standard library's distributions differ between implementations, so they
// are banned).
//
// Every component derives its own stream from the root seed and a stable name
// (`Rng::derive(root_seed, "network/link/A/N3")`: process names, never ids or indexes that a
// reduction can shift), so a new draw in one model never shifts what another model sees.
#pragma once

#include <cstdint>
#include <string_view>

namespace redlock_sim {

class SplitMix64 {
 public:
  explicit SplitMix64(uint64_t state) : state_(state) {}
  uint64_t next() {
    uint64_t z = (state_ += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }

 private:
  uint64_t state_;
};

// FNV-1a over a name, for deriving streams from stable component names.
uint64_t stable_hash(std::string_view text);

class Rng {
 public:
  explicit Rng(uint64_t seed);
  // The stream for one named component of a run.
  static Rng derive(uint64_t root_seed, std::string_view component);

  uint64_t next_u64();
  // Uniform in [0, bound), unbiased (Lemire's multiply-and-reject). bound must be > 0.
  uint64_t below(uint64_t bound);
  // Uniform in [low, high], both inclusive.
  int64_t between(int64_t low, int64_t high);
  // True with probability numerator/denominator, exactly.
  bool chance(uint64_t numerator, uint64_t denominator);

 private:
  uint64_t s_[4];
};

}  // namespace redlock_sim
