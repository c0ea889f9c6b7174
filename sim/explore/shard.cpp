#include "sim/explore/shard.hpp"

namespace redlock_sim {

namespace {

// Decimal digits only (no sign, no spaces), at most 19 of them, so the value fits.
std::optional<uint64_t> parse_decimal(const std::string& text) {
  if (text.empty() || text.size() > 19) return std::nullopt;
  uint64_t value = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return std::nullopt;
    value = value * 10 + static_cast<uint64_t>(c - '0');
  }
  return value;
}

}  // namespace

std::optional<Shard> parse_shard(const std::string& text) {
  const std::size_t slash = text.find('/');
  if (slash == std::string::npos) return std::nullopt;
  const std::optional<uint64_t> index = parse_decimal(text.substr(0, slash));
  const std::optional<uint64_t> count = parse_decimal(text.substr(slash + 1));
  if (!index || !count || *count == 0 || *count > shard_count_max || *index >= *count) {
    return std::nullopt;
  }
  return Shard{.index = *index, .count = *count};
}

std::string shard_text(const Shard& shard) {
  return std::to_string(shard.index) + "/" + std::to_string(shard.count);
}

ItemRange shard_block(uint64_t total, const Shard& shard) {
  // 128-bit products: K * total overflows 64 bits for large sweeps.
  const auto at = [&](uint64_t k) {
    return static_cast<uint64_t>(static_cast<unsigned __int128>(k) * total / shard.count);
  };
  return ItemRange{.begin = at(shard.index), .end = at(shard.index + 1)};
}

bool shard_owns(uint64_t item, const Shard& shard) {
  return item % shard.count == shard.index;
}

}  // namespace redlock_sim
