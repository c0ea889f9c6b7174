#include "sim/redis/lua_cmsgpack.hpp"

#include <climits>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>

extern "C" {
#include <lauxlib.h>
#include <lua.h>
}

namespace redlock_sim::lua_cmsgpack {
namespace {

constexpr int nesting_max = 16;  // deeper tables are encoded as nil (survives cycles)
constexpr uint64_t steps_per_charge = 4096;

// The steps walked so far, charged to the script's budget every steps_per_charge values.
struct Steps {
  lua_State* lua;
  const lua_patterns::StepSink* sink;
  uint64_t pending = 0;
  void one() {
    if (++pending < steps_per_charge) return;
    const uint64_t steps = pending;
    pending = 0;
    (*sink)(lua, steps);
  }
  void flush() {
    if (pending > 0) (*sink)(lua, pending);
    pending = 0;
  }
};

const lua_patterns::StepSink* sink_of(lua_State* lua) {
  return static_cast<const lua_patterns::StepSink*>(lua_touserdata(lua, lua_upvalueindex(1)));
}

// The output, in a userdata kept at a fixed stack slot (below everything the encoder pushes),
// so it grows through the Lua allocator and is collected if an error unwinds the call.
class Output {
 public:
  Output(lua_State* lua, int slot) : lua_(lua), slot_(slot) {}
  void append(const void* bytes, std::size_t count) {
    if (count > capacity_ - length_) grow(count);
    std::memcpy(data_ + length_, bytes, count);
    length_ += count;
  }
  void byte(unsigned char value) { append(&value, 1); }
  // `value`'s low `count` bytes, big endian, after the type byte.
  void big_endian(unsigned char type, uint64_t value, int count) {
    unsigned char bytes[9];
    bytes[0] = type;
    for (int i = 0; i < count; ++i)
      bytes[1 + i] = static_cast<unsigned char>(value >> (8 * (count - 1 - i)));
    append(bytes, static_cast<std::size_t>(count) + 1);
  }
  void push_result() { lua_pushlstring(lua_, length_ == 0 ? "" : data_, length_); }

 private:
  void grow(std::size_t count) {
    std::size_t capacity = capacity_ < 64 ? 64 : capacity_;
    while (capacity - length_ < count) {
      if (capacity > SIZE_MAX / 2) luaL_error(lua_, "not enough memory");
      capacity *= 2;
    }
    luaL_checkstack(lua_, 1, "in function mp_buf_append");
    char* data = static_cast<char*>(lua_newuserdata(lua_, capacity));  // may raise ERRMEM
    if (length_ > 0) std::memcpy(data, data_, length_);
    lua_replace(lua_, slot_);
    data_ = data;
    capacity_ = capacity;
  }
  lua_State* lua_;
  int slot_;
  char* data_ = nullptr;
  std::size_t length_ = 0;
  std::size_t capacity_ = 0;
};

// (long long) and (int) of a double as x86-64 computes them: out of range and NaN give the
// smallest value.
int64_t to_int64(double d) {
  if (!(d >= -9223372036854775808.0 && d < 9223372036854775808.0)) return INT64_MIN;
  return static_cast<int64_t>(d);
}
int to_int(double d) {
  if (!(d > -2147483649.0 && d < 2147483648.0)) return INT_MIN;
  return static_cast<int>(d);
}

void encode_bytes(Output& out, const char* text, std::size_t length) {
  if (length < 32) {
    out.byte(static_cast<unsigned char>(0xa0 | length));
  } else if (length <= 0xff) {
    out.big_endian(0xd9, length, 1);
  } else if (length <= 0xffff) {
    out.big_endian(0xda, length, 2);
  } else {
    out.big_endian(0xdb, length, 4);
  }
  out.append(text, length);
}

void encode_integer(Output& out, int64_t n) {
  if (n >= 0) {
    if (n <= 127) {
      out.byte(static_cast<unsigned char>(n));
    } else if (n <= 0xff) {
      out.big_endian(0xcc, static_cast<uint64_t>(n), 1);
    } else if (n <= 0xffff) {
      out.big_endian(0xcd, static_cast<uint64_t>(n), 2);
    } else if (n <= 0xffffffffLL) {
      out.big_endian(0xce, static_cast<uint64_t>(n), 4);
    } else {
      out.big_endian(0xcf, static_cast<uint64_t>(n), 8);
    }
  } else if (n >= -32) {
    out.byte(static_cast<unsigned char>(n));
  } else if (n >= -128) {
    out.big_endian(0xd0, static_cast<uint64_t>(n), 1);
  } else if (n >= -32768) {
    out.big_endian(0xd1, static_cast<uint64_t>(n), 2);
  } else if (n >= -2147483648LL) {
    out.big_endian(0xd2, static_cast<uint64_t>(n), 4);
  } else {
    out.big_endian(0xd3, static_cast<uint64_t>(n), 8);
  }
}

void encode_number(Output& out, double n) {
  if (!std::isinf(n) && static_cast<double>(to_int64(n)) == n) {
    encode_integer(out, to_int64(n));
    return;
  }
  const auto single = static_cast<float>(n);
  if (static_cast<double>(single) == n) {
    uint32_t bits = 0;
    std::memcpy(&bits, &single, sizeof bits);
    out.big_endian(0xca, bits, 4);
  } else {
    uint64_t bits = 0;
    std::memcpy(&bits, &n, sizeof bits);
    out.big_endian(0xcb, bits, 8);
  }
}

void encode_count(Output& out, unsigned char fixed, unsigned char type16, std::size_t n) {
  if (n <= 15) {
    out.byte(static_cast<unsigned char>(fixed | n));
  } else if (n <= 65535) {
    out.big_endian(type16, n, 2);
  } else {
    out.big_endian(static_cast<unsigned char>(type16 + 1), n, 4);
  }
}

// A table whose keys are exactly 1..n (numbers equal to a positive int) is an array.
bool is_array(lua_State* lua) {
  const int top = lua_gettop(lua);
  int count = 0;
  int max = 0;
  lua_pushnil(lua);
  while (lua_next(lua, -2) != 0) {
    lua_pop(lua, 1);
    double n = 0;
    if (lua_type(lua, -1) != LUA_TNUMBER || (n = lua_tonumber(lua, -1)) <= 0 ||
        static_cast<double>(to_int(n)) != n) {
      lua_settop(lua, top);
      return false;
    }
    if (n > max) max = to_int(n);
    ++count;
  }
  lua_settop(lua, top);
  return max == count;
}

void encode_value(lua_State* lua, Output& out, Steps& steps, int level);

void encode_table(lua_State* lua, Output& out, Steps& steps, int level) {
  if (is_array(lua)) {
    const std::size_t length = lua_objlen(lua, -1);
    encode_count(out, 0x90, 0xdc, length);
    luaL_checkstack(lua, 1, "in function mp_encode_lua_table_as_array");
    for (std::size_t i = 1; i <= length; ++i) {
      lua_pushnumber(lua, static_cast<lua_Number>(i));
      lua_gettable(lua, -2);
      encode_value(lua, out, steps, level + 1);
    }
    return;
  }
  luaL_checkstack(lua, 3, "in function mp_encode_lua_table_as_map");
  std::size_t length = 0;
  lua_pushnil(lua);
  while (lua_next(lua, -2) != 0) {
    lua_pop(lua, 1);
    ++length;
  }
  encode_count(out, 0x80, 0xde, length);
  lua_pushnil(lua);
  while (lua_next(lua, -2) != 0) {
    lua_pushvalue(lua, -2);
    encode_value(lua, out, steps, level + 1);  // the key
    encode_value(lua, out, steps, level + 1);  // the value
  }
}

// Encodes the value at the top of the stack and pops it.
void encode_value(lua_State* lua, Output& out, Steps& steps, int level) {
  steps.one();
  int type = lua_type(lua, -1);
  if (type == LUA_TTABLE && level == nesting_max) type = LUA_TNIL;
  switch (type) {
    case LUA_TSTRING: {
      std::size_t length = 0;
      const char* text = lua_tolstring(lua, -1, &length);
      encode_bytes(out, text, length);
      break;
    }
    case LUA_TBOOLEAN:
      out.byte(lua_toboolean(lua, -1) ? 0xc3 : 0xc2);
      break;
    case LUA_TNUMBER:
      encode_number(out, lua_tonumber(lua, -1));
      break;
    case LUA_TTABLE:
      encode_table(lua, out, steps, level);
      break;
    default:
      out.byte(0xc0);
  }
  lua_pop(lua, 1);
}

int pack(lua_State* lua) {
  const int arguments = lua_gettop(lua);
  if (arguments == 0) return luaL_argerror(lua, 0, "MessagePack pack needs input.");
  if (!lua_checkstack(lua, arguments + 2))
    return luaL_argerror(lua, 0, "Too many arguments for MessagePack pack.");
  Steps steps{lua, sink_of(lua)};
  lua_pushnil(lua);  // the output's slot
  Output out(lua, arguments + 1);
  for (int i = 1; i <= arguments; ++i) {
    lua_pushvalue(lua, i);
    encode_value(lua, out, steps, 0);
  }
  steps.flush();
  out.push_result();
  return 1;
}

enum class DecodeError { none, missing_bytes, bad_format };

struct Cursor {
  const unsigned char* p;
  std::size_t left;
  DecodeError error = DecodeError::none;
  bool need(std::size_t count) {
    if (left >= count) return true;
    error = DecodeError::missing_bytes;
    return false;
  }
  void consume(std::size_t count) {
    p += count;
    left -= count;
  }
  uint64_t big_endian(std::size_t offset, int count) const {
    uint64_t value = 0;
    for (int i = 0; i < count; ++i)
      value = (value << 8) | p[offset + static_cast<std::size_t>(i)];
    return value;
  }
};

void decode_value(lua_State* lua, Cursor& c, Steps& steps);

void decode_array(lua_State* lua, Cursor& c, Steps& steps, std::size_t length) {
  lua_newtable(lua);
  luaL_checkstack(lua, 1, "in function mp_decode_to_lua_array");
  for (lua_Number index = 1; length > 0; --length, ++index) {
    lua_pushnumber(lua, index);
    decode_value(lua, c, steps);
    if (c.error != DecodeError::none) return;
    lua_settable(lua, -3);
  }
}

void decode_map(lua_State* lua, Cursor& c, Steps& steps, std::size_t length) {
  lua_newtable(lua);
  luaL_checkstack(lua, 1, "in function mp_decode_to_lua_hash");  // see the header
  for (; length > 0; --length) {
    decode_value(lua, c, steps);
    if (c.error != DecodeError::none) return;
    decode_value(lua, c, steps);
    if (c.error != DecodeError::none) return;
    lua_settable(lua, -3);
  }
}

void push_string(lua_State* lua, Cursor& c, std::size_t header, std::size_t length) {
  if (!c.need(header) || (c.consume(header), !c.need(length))) return;
  lua_pushlstring(lua, reinterpret_cast<const char*>(c.p), length);
  c.consume(length);
}

// Pushes the next value; on an error pushes nothing more and sets c.error.
void decode_value(lua_State* lua, Cursor& c, Steps& steps) {
  if (!c.need(1)) return;
  steps.one();
  luaL_checkstack(lua, 1,
                  "too many return values at once; use unpack_one or unpack_limit instead.");
  const unsigned char type = c.p[0];
  const auto fixed = [&](int count) { return c.need(1 + static_cast<std::size_t>(count)); };
  switch (type) {
    case 0xcc:
    case 0xcd:
    case 0xce:
    case 0xcf: {  // uint 8, 16, 32, 64 (64 bits read as lua_Integer: above 2^63 negative)
      const int count = 1 << (type - 0xcc);
      if (!fixed(count)) return;
      lua_pushinteger(lua, static_cast<lua_Integer>(c.big_endian(1, count)));
      c.consume(1 + static_cast<std::size_t>(count));
      return;
    }
    case 0xd0:
    case 0xd1:
    case 0xd2:
    case 0xd3: {  // int 8, 16, 32, 64
      const int count = 1 << (type - 0xd0);
      if (!fixed(count)) return;
      const uint64_t raw = c.big_endian(1, count);
      const int shift = 64 - 8 * count;
      const auto value = static_cast<int64_t>(raw << shift) >> shift;
      if (type == 0xd3) {
        lua_pushnumber(lua, static_cast<lua_Number>(value));
      } else {
        lua_pushinteger(lua, static_cast<lua_Integer>(value));
      }
      c.consume(1 + static_cast<std::size_t>(count));
      return;
    }
    case 0xc0:
      lua_pushnil(lua);
      c.consume(1);
      return;
    case 0xc2:
    case 0xc3:
      lua_pushboolean(lua, type == 0xc3);
      c.consume(1);
      return;
    case 0xca: {
      if (!fixed(4)) return;
      const auto bits = static_cast<uint32_t>(c.big_endian(1, 4));
      float value = 0;
      std::memcpy(&value, &bits, sizeof value);
      lua_pushnumber(lua, value);
      c.consume(5);
      return;
    }
    case 0xcb: {
      if (!fixed(8)) return;
      const uint64_t bits = c.big_endian(1, 8);
      double value = 0;
      std::memcpy(&value, &bits, sizeof value);
      lua_pushnumber(lua, value);
      c.consume(9);
      return;
    }
    case 0xd9:
    case 0xda:
    case 0xdb: {  // str 8, 16, 32
      const int count = 1 << (type - 0xd9);
      if (!fixed(count)) return;
      push_string(lua, c, 1 + static_cast<std::size_t>(count), c.big_endian(1, count));
      return;
    }
    case 0xdc:
    case 0xdd:
    case 0xde:
    case 0xdf: {  // array 16, 32, map 16, 32
      const int count = (type == 0xdc || type == 0xde) ? 2 : 4;
      if (!fixed(count)) return;
      const std::size_t length = c.big_endian(1, count);
      c.consume(1 + static_cast<std::size_t>(count));
      if (type <= 0xdd) {
        decode_array(lua, c, steps, length);
      } else {
        decode_map(lua, c, steps, length);
      }
      return;
    }
    default:
      break;
  }
  if ((type & 0x80) == 0) {
    lua_pushinteger(lua, type);
    c.consume(1);
  } else if ((type & 0xe0) == 0xe0) {
    lua_pushinteger(lua, static_cast<signed char>(type));
    c.consume(1);
  } else if ((type & 0xe0) == 0xa0) {
    push_string(lua, c, 1, type & 0x1f);
  } else if ((type & 0xf0) == 0x90) {
    c.consume(1);
    decode_array(lua, c, steps, type & 0xf);
  } else if ((type & 0xf0) == 0x80) {
    c.consume(1);
    decode_map(lua, c, steps, type & 0xf);
  } else {
    c.error = DecodeError::bad_format;
  }
}

int unpack_full(lua_State* lua, int limit, int offset) {
  std::size_t length = 0;
  const char* text = luaL_checklstring(lua, 1, &length);
  const bool all = limit == 0 && offset == 0;
  // lua-cmsgpack prints the input's length where it says "limit", with %d (its low 32 bits).
  if (offset < 0 || limit < 0) {
    return luaL_error(lua, "Invalid request to unpack with offset of %d and limit of %d.", offset,
                      static_cast<int>(length));
  }
  if (static_cast<std::size_t>(offset) > length) {
    return luaL_error(lua, "Start offset %d greater than input length %d.", offset,
                      static_cast<int>(length));
  }
  if (all) limit = INT_MAX;
  Steps steps{lua, sink_of(lua)};
  Cursor c{reinterpret_cast<const unsigned char*>(text) + offset,
           length - static_cast<std::size_t>(offset)};
  int count = 0;
  for (; c.left > 0 && count < limit; ++count) {
    decode_value(lua, c, steps);
    if (c.error == DecodeError::missing_bytes) return luaL_error(lua, "Missing bytes in input.");
    if (c.error == DecodeError::bad_format) return luaL_error(lua, "Bad data format in input.");
  }
  steps.flush();
  if (!all) {
    luaL_checkstack(lua, 1, "in function mp_unpack_full");
    lua_pushinteger(lua, c.left == 0 ? -1 : static_cast<lua_Integer>(length - c.left));
    lua_insert(lua, 2);
    ++count;
  }
  return count;
}

int unpack(lua_State* lua) {
  return unpack_full(lua, 0, 0);
}

int unpack_one(lua_State* lua) {
  const int offset = static_cast<int>(luaL_optinteger(lua, 2, 0));
  lua_pop(lua, lua_gettop(lua) - 1);
  return unpack_full(lua, 1, offset);
}

int unpack_limit(lua_State* lua) {
  const int limit = static_cast<int>(luaL_checkinteger(lua, 2));
  const int offset = static_cast<int>(luaL_optinteger(lua, 3, 0));
  lua_pop(lua, lua_gettop(lua) - 1);
  return unpack_full(lua, limit, offset);
}

}  // namespace

int open(lua_State* lua, const lua_patterns::StepSink* sink) {
  lua_newtable(lua);
  const std::pair<const char*, lua_CFunction> functions[] = {{"pack", pack},
                                                             {"unpack", unpack},
                                                             {"unpack_one", unpack_one},
                                                             {"unpack_limit", unpack_limit}};
  for (const auto& [name, function] : functions) {
    lua_pushlightuserdata(lua, const_cast<lua_patterns::StepSink*>(sink));
    lua_pushcclosure(lua, function, 1);
    lua_setfield(lua, -2, name);
  }
  const std::pair<const char*, const char*> metadata[] = {
      {"_NAME", "cmsgpack"},
      {"_VERSION", "lua-cmsgpack 0.4.0"},
      {"_COPYRIGHT", "Copyright (C) 2012, Salvatore Sanfilippo"},
      {"_DESCRIPTION", "MessagePack C implementation for Lua"}};
  for (const auto& [name, value] : metadata) {
    lua_pushstring(lua, value);
    lua_setfield(lua, -2, name);
  }
  return 1;
}

}  // namespace redlock_sim::lua_cmsgpack
