#include "sim/redis/text.hpp"

#include <cstring>

namespace redlock_sim::redis_text {

bool parse_int64(std::string_view text, int64_t& value) {
  // Redis refuses anything of 21 characters or more before looking at it.
  if (text.empty() || text.size() >= 21) return false;
  if (text.size() == 1) {  // a digit (EVAL's key count, most often)
    const auto digit = static_cast<unsigned>(static_cast<unsigned char>(text[0])) - '0';
    if (digit > 9) return false;
    value = digit;
    return true;
  }
  std::size_t position = 0;
  const bool negative = text[0] == '-';
  if (negative && ++position == text.size()) return false;
  if (text[position] < '1' || text[position] > '9') return false;
  uint64_t magnitude = 0;
  if (text.size() - position <= 19) {
    // Nineteen digits or fewer cannot pass UINT64_MAX (20 digits): no check a digit.
    for (; position < text.size(); ++position) {
      const auto digit = static_cast<uint64_t>(static_cast<unsigned char>(text[position]) - '0');
      if (digit > 9) return false;
      magnitude = magnitude * 10 + digit;
    }
  } else {
    for (; position < text.size(); ++position) {
      const char c = text[position];
      if (c < '0' || c > '9') return false;
      const uint64_t digit = static_cast<uint64_t>(c - '0');
      if (magnitude > (UINT64_MAX - digit) / 10) return false;
      magnitude = magnitude * 10 + digit;
    }
  }
  if (negative) {
    if (magnitude > static_cast<uint64_t>(INT64_MAX) + 1) return false;
    value = magnitude == static_cast<uint64_t>(INT64_MAX) + 1 ? INT64_MIN
                                                              : -static_cast<int64_t>(magnitude);
  } else {
    if (magnitude > static_cast<uint64_t>(INT64_MAX)) return false;
    value = static_cast<int64_t>(magnitude);
  }
  return true;
}

std::string format_int64(int64_t value) {
  // Two digits a step from the right, without counting the digits first (std::to_string and
  // std::to_chars both cost about 240 instructions for a 13-digit time in milliseconds).
  static constexpr char pairs[] =
      "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
      "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
      "8081828384858687888990919293949596979899";
  char digits[20];
  char* const end = digits + sizeof digits;
  char* first = end;
  uint64_t magnitude = value < 0 ? 0 - static_cast<uint64_t>(value) : static_cast<uint64_t>(value);
  while (magnitude >= 100) {
    const uint64_t pair = magnitude % 100;
    magnitude /= 100;
    first -= 2;
    std::memcpy(first, pairs + 2 * pair, 2);
  }
  if (magnitude >= 10) {
    first -= 2;
    std::memcpy(first, pairs + 2 * magnitude, 2);
  } else {
    *--first = static_cast<char>('0' + magnitude);
  }
  if (value < 0) *--first = '-';
  return std::string(first, end);
}

bool equals_ignore_case(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    char x = a[i];
    char y = b[i];
    if (x >= 'A' && x <= 'Z') x = static_cast<char>(x - 'A' + 'a');
    if (y >= 'A' && y <= 'Z') y = static_cast<char>(y - 'A' + 'a');
    if (x != y) return false;
  }
  return true;
}

std::string to_lower(std::string_view text) {
  std::string lower(text);
  for (char& c : lower) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return lower;
}

std::string invalid_expire_time(std::string_view command_name) {
  return "ERR invalid expire time in '" + std::string(command_name) + "' command";
}

std::string wrong_arity(std::string_view command_name) {
  return "ERR wrong number of arguments for '" + std::string(command_name) + "' command";
}

}  // namespace redlock_sim::redis_text
