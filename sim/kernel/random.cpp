#include "sim/kernel/random.hpp"

#include "sim/kernel/assert.hpp"

namespace redlock_sim {

uint64_t stable_hash(std::string_view text) {
  uint64_t hash = 0xcbf29ce484222325ULL;
  for (unsigned char c : text) {
    hash ^= c;
    hash *= 0x100000001b3ULL;
  }
  return hash;
}

Rng::Rng(uint64_t seed) {
  SplitMix64 seeder(seed);
  for (uint64_t& word : s_)
    word = seeder.next();
}

Rng Rng::derive(uint64_t root_seed, std::string_view component) {
  SplitMix64 mixer(root_seed ^ stable_hash(component));
  return Rng(mixer.next());
}

namespace {
inline uint64_t rotl(uint64_t x, int k) {
  return (x << k) | (x >> (64 - k));
}
}  // namespace

uint64_t Rng::next_u64() {
  const uint64_t result = rotl(s_[1] * 5, 7) * 9;
  const uint64_t t = s_[1] << 17;
  s_[2] ^= s_[0];
  s_[3] ^= s_[1];
  s_[1] ^= s_[2];
  s_[0] ^= s_[3];
  s_[2] ^= t;
  s_[3] = rotl(s_[3], 45);
  return result;
}

uint64_t Rng::below(uint64_t bound) {
  SIM_ASSERT(bound > 0);
  uint64_t x = next_u64();
  unsigned __int128 m = static_cast<unsigned __int128>(x) * bound;
  uint64_t low = static_cast<uint64_t>(m);
  if (low < bound) {
    const uint64_t threshold = (0 - bound) % bound;
    while (low < threshold) {
      x = next_u64();
      m = static_cast<unsigned __int128>(x) * bound;
      low = static_cast<uint64_t>(m);
    }
  }
  return static_cast<uint64_t>(m >> 64);
}

int64_t Rng::between(int64_t low, int64_t high) {
  SIM_ASSERT_LE(low, high);
  const uint64_t span = static_cast<uint64_t>(high) - static_cast<uint64_t>(low);
  if (span == UINT64_MAX) return static_cast<int64_t>(next_u64());
  return static_cast<int64_t>(static_cast<uint64_t>(low) + below(span + 1));
}

bool Rng::chance(uint64_t numerator, uint64_t denominator) {
  SIM_ASSERT(denominator > 0);
  if (numerator >= denominator) return true;
  if (numerator == 0) return false;
  return below(denominator) < numerator;
}

}  // namespace redlock_sim
