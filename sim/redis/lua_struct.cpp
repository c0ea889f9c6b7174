#include "sim/redis/lua_struct.hpp"

#include <cctype>
#include <climits>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>

extern "C" {
#include <lauxlib.h>
#include <lua.h>
}

namespace redlock_sim::lua_struct {
namespace {

// Formats (struct 1.4): `>` big endian, `<` little endian, `![n]` alignment, `x` a zero byte,
// b/B h/H l/L T signed/unsigned char, short, long, size_t; i/I[n] an integer of n bytes (default
// 4, at most 32); c[n] n chars (pack: n = 0 takes the whole string; unpack: n = 0 takes the
// previous number read); s a zero-terminated string; f float; d double; spaces ignored.
constexpr int integer_size_max = 32;
constexpr int alignment_max = 8;  // x86-64: max(the padding before a double, sizeof(int))

struct Header {
  bool little = true;  // x86-64 is little endian
  int align = 1;
};

bool is_digit(char c) {
  return std::isdigit(static_cast<unsigned char>(c)) != 0;
}

int read_number(lua_State* lua, const char*& format, int fallback) {
  if (!is_digit(*format)) return fallback;
  int value = 0;
  do {
    const int digit = *format - '0';
    if (value > INT_MAX / 10 || value * 10 > INT_MAX - digit)
      luaL_error(lua, "integral size overflow");
    value = value * 10 + digit;
    ++format;
  } while (is_digit(*format));
  return value;
}

// The size an option takes; options that take no room (and unknown ones) are 0.
std::size_t option_size(lua_State* lua, char option, const char*& format) {
  switch (option) {
    case 'B':
    case 'b':
      return 1;
    case 'H':
    case 'h':
      return 2;
    case 'L':
    case 'l':
    case 'T':
    case 'd':
      return 8;
    case 'f':
      return 4;
    case 'x':
      return 1;
    case 'c':
      // As in C, a negative count read back as size_t is huge (and then refused as too short).
      return static_cast<std::size_t>(static_cast<long>(read_number(lua, format, 1)));
    case 'i':
    case 'I': {
      const int size = read_number(lua, format, 4);
      if (size > integer_size_max)
        luaL_error(lua, "integral size %d is larger than limit of %d", size, integer_size_max);
      return static_cast<std::size_t>(size);
    }
    default:
      return 0;
  }
}

std::size_t padding(std::size_t length, const Header& header, char option, std::size_t size) {
  if (size == 0 || option == 'c') return 0;
  if (size > static_cast<std::size_t>(header.align)) size = static_cast<std::size_t>(header.align);
  return (size - (length & (size - 1))) & (size - 1);
}

bool is_power_of_two(int value) {
  return value > 0 && (value & (value - 1)) == 0;
}

void control_option(lua_State* lua, char option, const char*& format, Header& header) {
  switch (option) {
    case ' ':
      return;
    case '>':
      header.little = false;
      return;
    case '<':
      header.little = true;
      return;
    case '!': {
      const int align = read_number(lua, format, alignment_max);
      if (!is_power_of_two(align)) luaL_error(lua, "alignment %d is not a power of 2", align);
      header.align = align;
      return;
    }
    default:
      luaL_argerror(lua, 1, lua_pushfstring(lua, "invalid format option '%c'", option));
  }
}

// A double as C's (unsigned long) cast computes it on x86-64 (gcc): negatives through (long),
// which gives INT64_MIN out of range; from 2^63 by subtracting 2^63 first, so 2^64 and beyond
// come out 0 or with the top bit flipped, as the hardware conversion does.
uint64_t to_unsigned(lua_Number n) {
  const auto to_long = [](double d) -> uint64_t {
    if (!(d >= -9223372036854775808.0 && d < 9223372036854775808.0)) return 1ULL << 63;
    return static_cast<uint64_t>(static_cast<int64_t>(d));
  };
  // The comparison with 2^63 is unordered for NaN, which takes the (long) path: INT64_MIN.
  if (n < 0 || std::isnan(n)) return to_long(n);
  if (n < 9223372036854775808.0) return to_long(n);
  return to_long(n - 9223372036854775808.0) ^ (1ULL << 63);
}

void put_integer(lua_State* lua, luaL_Buffer* buffer, int argument, bool little, std::size_t size) {
  uint64_t value = to_unsigned(luaL_checknumber(lua, argument));
  char bytes[integer_size_max];
  for (std::size_t i = 0; i < size; ++i) {
    bytes[little ? i : size - 1 - i] = static_cast<char>(value & 0xff);
    value = i < 7 ? value >> 8 : 0;  // C shifts the 64-bit value out to zeros
  }
  luaL_addlstring(buffer, bytes, size);
}

void put_bytes(luaL_Buffer* buffer, const void* value, std::size_t size, bool little) {
  char bytes[8];
  std::memcpy(bytes, value, size);
  if (!little) {
    for (std::size_t i = 0; i < size / 2; ++i)
      std::swap(bytes[i], bytes[size - 1 - i]);
  }
  luaL_addlstring(buffer, bytes, size);
}

int pack(lua_State* lua) {
  const char* format = luaL_checkstring(lua, 1);
  Header header;
  int argument = 2;
  std::size_t total = 0;
  lua_pushnil(lua);  // separates the arguments from the buffer's stack slots
  luaL_Buffer buffer;
  luaL_buffinit(lua, &buffer);
  while (*format != '\0') {
    const char option = *format++;
    std::size_t size = option_size(lua, option, format);
    std::size_t pad = padding(total, header, option, size);
    total += pad;
    while (pad-- > 0)
      luaL_addchar(&buffer, '\0');
    switch (option) {
      case 'b':
      case 'B':
      case 'h':
      case 'H':
      case 'l':
      case 'L':
      case 'T':
      case 'i':
      case 'I':
        put_integer(lua, &buffer, argument++, header.little, size);
        break;
      case 'x':
        luaL_addchar(&buffer, '\0');
        break;
      case 'f': {
        const float value = static_cast<float>(luaL_checknumber(lua, argument++));
        put_bytes(&buffer, &value, sizeof value, header.little);
        break;
      }
      case 'd': {
        const double value = luaL_checknumber(lua, argument++);
        put_bytes(&buffer, &value, sizeof value, header.little);
        break;
      }
      case 'c':
      case 's': {
        std::size_t length = 0;
        const char* text = luaL_checklstring(lua, argument++, &length);
        if (size == 0) size = length;
        // The argument number is the next one's, as in struct.c.
        luaL_argcheck(lua, length >= size, argument, "string too short");
        luaL_addlstring(&buffer, text, size);
        if (option == 's') {
          luaL_addchar(&buffer, '\0');
          ++size;
        }
        break;
      }
      default:
        control_option(lua, option, format, header);
    }
    total += size;
  }
  luaL_pushresult(&buffer);
  return 1;
}

lua_Number get_integer(const char* bytes, bool little, bool is_signed, std::size_t size) {
  uint64_t value = 0;
  for (std::size_t i = 0; i < size; ++i) {
    const auto byte = static_cast<unsigned char>(bytes[little ? size - 1 - i : i]);
    value = (value << 8) | byte;
  }
  if (!is_signed) return static_cast<lua_Number>(value);
  // x86-64 shifts by the count modulo 64 (size 0 and sizes past 8 included).
  const uint64_t sign = ~0ULL << ((size * 8 - 1) & 63);
  if ((value & sign) != 0) value |= sign;
  return static_cast<lua_Number>(static_cast<int64_t>(value));
}

void get_bytes(void* value, const char* bytes, std::size_t size, bool little) {
  char copy[8];
  std::memcpy(copy, bytes, size);
  if (!little) {
    for (std::size_t i = 0; i < size / 2; ++i)
      std::swap(copy[i], copy[size - 1 - i]);
  }
  std::memcpy(value, copy, size);
}

int unpack(lua_State* lua) {
  const char* format = luaL_checkstring(lua, 1);
  std::size_t length = 0;
  const char* data = luaL_checklstring(lua, 2, &length);
  std::size_t position = static_cast<std::size_t>(luaL_optinteger(lua, 3, 1));
  luaL_argcheck(lua, position > 0, 3, "offset must be 1 or greater");
  --position;
  int results = 0;
  Header header;
  while (*format != '\0') {
    const char option = *format++;
    std::size_t size = option_size(lua, option, format);
    position += padding(position, header, option, size);
    luaL_argcheck(lua, size <= length && position <= length - size, 2, "data string too short");
    luaL_checkstack(lua, 2, "too many results");
    switch (option) {
      case 'b':
      case 'B':
      case 'h':
      case 'H':
      case 'l':
      case 'L':
      case 'T':
      case 'i':
      case 'I':
        lua_pushnumber(lua,
                       get_integer(data + position, header.little,
                                   std::islower(static_cast<unsigned char>(option)) != 0, size));
        ++results;
        break;
      case 'x':
        break;
      case 'f': {
        float value = 0;
        get_bytes(&value, data + position, sizeof value, header.little);
        lua_pushnumber(lua, value);
        ++results;
        break;
      }
      case 'd': {
        double value = 0;
        get_bytes(&value, data + position, sizeof value, header.little);
        lua_pushnumber(lua, value);
        ++results;
        break;
      }
      case 'c': {
        if (size == 0) {
          if (results == 0 || !lua_isnumber(lua, -1))
            luaL_error(lua, "format 'c0' needs a previous size");
          size = to_unsigned(lua_tonumber(lua, -1));
          lua_pop(lua, 1);
          --results;
          luaL_argcheck(lua, size <= length && position <= length - size, 2,
                        "data string too short");
        }
        lua_pushlstring(lua, data + position, size);
        ++results;
        break;
      }
      case 's': {
        const void* end = std::memchr(data + position, '\0', length - position);
        if (end == nullptr) luaL_error(lua, "unfinished string in data");
        size = static_cast<std::size_t>(static_cast<const char*>(end) - (data + position)) + 1;
        lua_pushlstring(lua, data + position, size - 1);
        ++results;
        break;
      }
      default:
        control_option(lua, option, format, header);
    }
    position += size;
  }
  lua_pushinteger(lua, static_cast<lua_Integer>(position + 1));
  return results + 1;
}

int size(lua_State* lua) {
  const char* format = luaL_checkstring(lua, 1);
  Header header;
  std::size_t position = 0;
  while (*format != '\0') {
    const char option = *format++;
    const std::size_t size = option_size(lua, option, format);
    position += padding(position, header, option, size);
    if (option == 's') {
      luaL_argerror(lua, 1, "option 's' has no fixed size");
    } else if (option == 'c' && size == 0) {
      luaL_argerror(lua, 1, "option 'c0' has no fixed size");
    }
    if (!std::isalnum(static_cast<unsigned char>(option)))
      control_option(lua, option, format, header);
    position += size;
  }
  lua_pushinteger(lua, static_cast<lua_Integer>(position));
  return 1;
}

}  // namespace

int open(lua_State* lua) {
  const luaL_Reg functions[] = {
      {"pack", pack}, {"unpack", unpack}, {"size", size}, {nullptr, nullptr}};
  lua_newtable(lua);
  luaL_register(lua, nullptr, functions);
  return 1;
}

}  // namespace redlock_sim::lua_struct
