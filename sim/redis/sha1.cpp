#include "sim/redis/sha1.hpp"

#include <array>
#include <cstdint>

namespace redlock_sim {

namespace {

uint32_t rotate_left(uint32_t value, int bits) {
  return (value << bits) | (value >> (32 - bits));
}

void process_block(std::array<uint32_t, 5>& state, const unsigned char* block) {
  std::array<uint32_t, 80> w{};
  for (int i = 0; i < 16; ++i) {
    w[i] = (uint32_t{block[4 * i]} << 24) | (uint32_t{block[4 * i + 1]} << 16) |
           (uint32_t{block[4 * i + 2]} << 8) | uint32_t{block[4 * i + 3]};
  }
  for (int i = 16; i < 80; ++i)
    w[i] = rotate_left(w[i - 3] ^ w[i - 8] ^ w[i - 14] ^ w[i - 16], 1);
  uint32_t a = state[0], b = state[1], c = state[2], d = state[3], e = state[4];
  for (int i = 0; i < 80; ++i) {
    uint32_t f = 0;
    uint32_t k = 0;
    if (i < 20) {
      f = (b & c) | (~b & d);
      k = 0x5a827999;
    } else if (i < 40) {
      f = b ^ c ^ d;
      k = 0x6ed9eba1;
    } else if (i < 60) {
      f = (b & c) | (b & d) | (c & d);
      k = 0x8f1bbcdc;
    } else {
      f = b ^ c ^ d;
      k = 0xca62c1d6;
    }
    const uint32_t next = rotate_left(a, 5) + f + e + k + w[i];
    e = d;
    d = c;
    c = rotate_left(b, 30);
    b = a;
    a = next;
  }
  state[0] += a;
  state[1] += b;
  state[2] += c;
  state[3] += d;
  state[4] += e;
}

}  // namespace

std::string sha1_hex(std::string_view data) {
  std::array<uint32_t, 5> state = {0x67452301, 0xefcdab89, 0x98badcfe, 0x10325476, 0xc3d2e1f0};
  const auto* bytes = reinterpret_cast<const unsigned char*>(data.data());
  std::size_t offset = 0;
  for (; offset + 64 <= data.size(); offset += 64)
    process_block(state, bytes + offset);
  // The tail: remaining bytes, 0x80, zeros, then the bit length big-endian in the last 8 bytes.
  std::array<unsigned char, 128> tail{};
  const std::size_t rest = data.size() - offset;
  for (std::size_t i = 0; i < rest; ++i)
    tail[i] = bytes[offset + i];
  tail[rest] = 0x80;
  const std::size_t tail_size = rest + 1 + 8 <= 64 ? 64 : 128;
  const uint64_t bit_length = static_cast<uint64_t>(data.size()) * 8;
  for (int i = 0; i < 8; ++i) {
    tail[tail_size - 1 - i] = static_cast<unsigned char>(bit_length >> (8 * i));
  }
  for (std::size_t block = 0; block < tail_size; block += 64) {
    process_block(state, tail.data() + block);
  }
  static const char* digits = "0123456789abcdef";
  std::string hex;
  hex.reserve(40);
  for (uint32_t word : state) {
    for (int shift = 28; shift >= 0; shift -= 4)
      hex.push_back(digits[(word >> shift) & 0xf]);
  }
  return hex;
}

}  // namespace redlock_sim
