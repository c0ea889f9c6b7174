#include "sim/redis/lua_patterns.hpp"

#include <cctype>
#include <cstddef>
#include <cstring>
#include <string>

extern "C" {
#include <lauxlib.h>
#include <lua.h>
}

namespace redlock_sim::lua_patterns {

namespace {

constexpr int captures_max = 32;  // LUA_MAXCAPTURES
constexpr std::ptrdiff_t capture_open = -1;
constexpr std::ptrdiff_t capture_position = -2;
constexpr uint64_t steps_per_report = 4096;
const char* const specials = "^$*+?.([%-";

unsigned char byte_of(char c) {
  return static_cast<unsigned char>(c);
}

// One match of a pattern against a subject. Pointers, as Lua's, because the pattern is read as a
// C string (ended by its first NUL) and the subject's terminating NUL is read at its end.
class Matcher {
 public:
  Matcher(lua_State* lua, const char* subject, std::size_t length, const StepSink* sink)
      : lua_(lua), begin_(subject), end_(subject + length), sink_(sink) {}
  // Trivially destructible: Lua errors unwind through it with longjmp. Steps not yet reported
  // when a match ends (fewer than steps_per_report) are dropped.
  Matcher(const Matcher&) = delete;
  Matcher& operator=(const Matcher&) = delete;

  const char* begin() const { return begin_; }
  const char* end() const { return end_; }
  void reset() { level_ = 0; }
  int level() const { return level_; }

  // The end of the match of `pattern` starting at `at`, or nullptr.
  const char* match(const char* at, const char* pattern) {
    while (true) {
      step();
      switch (*pattern) {
        case '(':
          if (pattern[1] == ')') return open_capture(at, pattern + 2, capture_position);
          return open_capture(at, pattern + 1, capture_open);
        case ')':
          return close_capture(at, pattern + 1);
        case '\0':
          return at;
        case '$':
          if (pattern[1] == '\0') return at == end_ ? at : nullptr;
          break;
        case '%':
          if (pattern[1] == 'b') {
            at = balanced(at, pattern + 2);
            if (at == nullptr) return nullptr;
            pattern += 4;
            continue;
          }
          if (pattern[1] == 'f') {
            pattern += 2;
            if (*pattern != '[') raise("missing '[' after '%f' in pattern");
            const char* after = class_end(pattern);
            const char previous = at == begin_ ? '\0' : at[-1];
            if (in_set(byte_of(previous), pattern, after - 1) ||
                !in_set(byte_of(*at), pattern, after - 1)) {
              return nullptr;
            }
            pattern = after;
            continue;
          }
          if (std::isdigit(byte_of(pattern[1]))) {
            at = same_as_capture(at, byte_of(pattern[1]));
            if (at == nullptr) return nullptr;
            pattern += 2;
            continue;
          }
          break;
        default:
          break;
      }
      // A single-character class, maybe followed by a repetition.
      const char* after = class_end(pattern);
      const bool matches = at < end_ && single(byte_of(*at), pattern, after);
      switch (*after) {
        case '?':
          if (matches) {
            if (const char* result = match(at + 1, after + 1)) return result;
          }
          pattern = after + 1;
          continue;
        case '*':
          return longest(at, pattern, after);
        case '+':
          return matches ? longest(at + 1, pattern, after) : nullptr;
        case '-':
          return shortest(at, pattern, after);
        default:
          if (!matches) return nullptr;
          ++at;
          pattern = after;
          continue;
      }
    }
  }

  // Pushes capture `index` (the whole match [from, to) when there are none and index is 0).
  void push_capture(int index, const char* from, const char* to) {
    if (index >= level_) {
      if (index != 0) raise("invalid capture index");
      lua_pushlstring(lua_, from, static_cast<std::size_t>(to - from));
      return;
    }
    const std::ptrdiff_t length = captures_[index].length;
    if (length == capture_open) raise("unfinished capture");
    if (length == capture_position) {
      lua_pushinteger(lua_, captures_[index].start - begin_ + 1);
    } else {
      lua_pushlstring(lua_, captures_[index].start, static_cast<std::size_t>(length));
    }
  }

  // Pushes every capture (the whole match when there are none and `from` is given).
  int push_captures(const char* from, const char* to) {
    const int count = (level_ == 0 && from != nullptr) ? 1 : level_;
    luaL_checkstack(lua_, count, "too many captures");
    for (int i = 0; i < count; ++i)
      push_capture(i, from, to);
    return count;
  }

  void step(uint64_t steps = 1) {
    pending_steps_ += steps;
    if (pending_steps_ >= steps_per_report) flush_steps();
  }

 private:
  struct Capture {
    const char* start = nullptr;
    std::ptrdiff_t length = 0;
  };

  [[noreturn]] void raise(const char* message) {
    flush_steps();
    luaL_error(lua_, "%s", message);
    __builtin_unreachable();
  }

  void flush_steps() {
    if (pending_steps_ == 0) return;
    const uint64_t steps = pending_steps_;
    pending_steps_ = 0;
    (*sink_)(lua_, steps);
  }

  // Past the class starting at `pattern` (a char, %x or [set]).
  const char* class_end(const char* pattern) {
    const char first = *pattern++;
    if (first == '%') {
      if (*pattern == '\0') raise("malformed pattern (ends with '%')");
      return pattern + 1;
    }
    if (first == '[') {
      if (*pattern == '^') ++pattern;
      do {
        if (*pattern == '\0') raise("malformed pattern (missing ']')");
        const char c = *pattern++;
        if (c == '%' && *pattern != '\0') ++pattern;
      } while (*pattern != ']');
      return pattern + 1;
    }
    return pattern;
  }

  // %a, %d, ... (upper case: the complement); any other character stands for itself.
  static bool in_class(int c, int letter) {
    bool result;
    switch (std::tolower(letter)) {
      case 'a':
        result = std::isalpha(c) != 0;
        break;
      case 'c':
        result = std::iscntrl(c) != 0;
        break;
      case 'd':
        result = std::isdigit(c) != 0;
        break;
      case 'l':
        result = std::islower(c) != 0;
        break;
      case 'p':
        result = std::ispunct(c) != 0;
        break;
      case 's':
        result = std::isspace(c) != 0;
        break;
      case 'u':
        result = std::isupper(c) != 0;
        break;
      case 'w':
        result = std::isalnum(c) != 0;
        break;
      case 'x':
        result = std::isxdigit(c) != 0;
        break;
      case 'z':
        result = c == 0;
        break;
      default:
        return letter == c;
    }
    return std::islower(letter) != 0 ? result : !result;
  }

  // [set] from `open` (its '[') to `close` (its ']').
  static bool in_set(int c, const char* open, const char* close) {
    bool inside = true;
    const char* p = open;
    if (p[1] == '^') {
      inside = false;
      ++p;
    }
    while (++p < close) {
      if (*p == '%') {
        ++p;
        if (in_class(c, byte_of(*p))) return inside;
      } else if (p[1] == '-' && p + 2 < close) {
        p += 2;
        if (byte_of(p[-2]) <= c && c <= byte_of(*p)) return inside;
      } else if (byte_of(*p) == c) {
        return inside;
      }
    }
    return !inside;
  }

  static bool single(int c, const char* pattern, const char* after) {
    switch (*pattern) {
      case '.':
        return true;
      case '%':
        return in_class(c, byte_of(pattern[1]));
      case '[':
        return in_set(c, pattern, after - 1);
      default:
        return byte_of(*pattern) == c;
    }
  }

  const char* balanced(const char* at, const char* pattern) {
    if (pattern[0] == '\0' || pattern[1] == '\0') raise("unbalanced pattern");
    if (*at != pattern[0]) return nullptr;
    int depth = 1;
    while (++at < end_) {
      step();
      if (*at == pattern[1]) {
        if (--depth == 0) return at + 1;
      } else if (*at == pattern[0]) {
        ++depth;
      }
    }
    return nullptr;
  }

  // x*: as many as possible, then fewer until the rest matches.
  const char* longest(const char* at, const char* pattern, const char* after) {
    std::ptrdiff_t count = 0;
    while (at + count < end_ && single(byte_of(at[count]), pattern, after)) {
      step();
      ++count;
    }
    for (; count >= 0; --count) {
      if (const char* result = match(at + count, after + 1)) return result;
    }
    return nullptr;
  }

  // x-: as few as possible, then more until the rest matches.
  const char* shortest(const char* at, const char* pattern, const char* after) {
    while (true) {
      if (const char* result = match(at, after + 1)) return result;
      if (at < end_ && single(byte_of(*at), pattern, after)) {
        ++at;
      } else {
        return nullptr;
      }
    }
  }

  const char* open_capture(const char* at, const char* pattern, std::ptrdiff_t kind) {
    if (level_ >= captures_max) raise("too many captures");
    captures_[level_] = {at, kind};
    ++level_;
    const char* result = match(at, pattern);
    if (result == nullptr) --level_;
    return result;
  }

  const char* close_capture(const char* at, const char* pattern) {
    int open = level_ - 1;
    while (open >= 0 && captures_[open].length != capture_open)
      --open;
    if (open < 0) raise("invalid pattern capture");
    captures_[open].length = at - captures_[open].start;
    const char* result = match(at, pattern);
    if (result == nullptr) captures_[open].length = capture_open;
    return result;
  }

  // %1..%9: the same text as that capture.
  const char* same_as_capture(const char* at, int digit) {
    const int index = digit - '1';
    if (index < 0 || index >= level_ || captures_[index].length == capture_open) {
      raise("invalid capture index");
    }
    // A position capture's length reads as a huge size, as in Lua: it never matches.
    const auto length = static_cast<std::size_t>(captures_[index].length);
    if (static_cast<std::size_t>(end_ - at) >= length &&
        std::memcmp(captures_[index].start, at, length) == 0) {
      return at + length;
    }
    return nullptr;
  }

  lua_State* lua_;
  const char* begin_;
  const char* end_;
  const StepSink* sink_;
  int level_ = 0;
  Capture captures_[captures_max];
  uint64_t pending_steps_ = 0;
};

const StepSink* sink_of(lua_State* lua) {
  return static_cast<const StepSink*>(lua_touserdata(lua, lua_upvalueindex(1)));
}

// A relative string position: negative counts back from the end.
std::ptrdiff_t relative(std::ptrdiff_t position, std::size_t length) {
  if (position < 0) position += static_cast<std::ptrdiff_t>(length) + 1;
  return position >= 0 ? position : 0;
}

int find_or_match(lua_State* lua, bool find) {
  std::size_t length = 0;
  std::size_t pattern_length = 0;
  const char* subject = luaL_checklstring(lua, 1, &length);
  const char* pattern = luaL_checklstring(lua, 2, &pattern_length);
  std::ptrdiff_t start = relative(luaL_optinteger(lua, 3, 1), length) - 1;
  if (start < 0) {
    start = 0;
  } else if (static_cast<std::size_t>(start) > length) {
    start = static_cast<std::ptrdiff_t>(length);
  }
  if (find && (lua_toboolean(lua, 4) != 0 || std::strpbrk(pattern, specials) == nullptr)) {
    const std::string_view haystack(subject, length);
    const std::size_t at =
        haystack.find(std::string_view(pattern, pattern_length), static_cast<std::size_t>(start));
    if (at != std::string_view::npos) {
      lua_pushinteger(lua, static_cast<lua_Integer>(at + 1));
      lua_pushinteger(lua, static_cast<lua_Integer>(at + pattern_length));
      return 2;
    }
  } else {
    Matcher matcher(lua, subject, length, sink_of(lua));
    const bool anchored = *pattern == '^';
    if (anchored) ++pattern;
    const char* at = subject + start;
    do {
      matcher.reset();
      if (const char* end = matcher.match(at, pattern)) {
        if (find) {
          lua_pushinteger(lua, at - subject + 1);
          lua_pushinteger(lua, end - subject);
          return matcher.push_captures(nullptr, nullptr) + 2;
        }
        return matcher.push_captures(at, end);
      }
      matcher.step();
    } while (at++ < matcher.end() && !anchored);
  }
  lua_pushnil(lua);
  return 1;
}

int find(lua_State* lua) {
  return find_or_match(lua, true);
}

int match(lua_State* lua) {
  return find_or_match(lua, false);
}

int gmatch_next(lua_State* lua) {
  std::size_t length = 0;
  // Upvalues: the step sink, the subject, the pattern, the next start.
  const char* subject = lua_tolstring(lua, lua_upvalueindex(2), &length);
  const char* pattern = lua_tostring(lua, lua_upvalueindex(3));
  Matcher matcher(lua, subject, length, sink_of(lua));
  for (const char* at = subject + static_cast<std::size_t>(lua_tointeger(lua, lua_upvalueindex(4)));
       at <= matcher.end(); ++at) {
    matcher.reset();
    if (const char* end = matcher.match(at, pattern)) {
      lua_Integer next = end - subject;
      if (end == at) ++next;  // an empty match moves on by one
      lua_pushinteger(lua, next);
      lua_replace(lua, lua_upvalueindex(4));
      return matcher.push_captures(at, end);
    }
    matcher.step();
  }
  return 0;
}

int gmatch(lua_State* lua) {
  luaL_checkstring(lua, 1);
  luaL_checkstring(lua, 2);
  lua_settop(lua, 2);
  lua_pushinteger(lua, 0);
  lua_pushvalue(lua, lua_upvalueindex(1));
  lua_insert(lua, 1);  // the sink first, as sink_of reads it
  lua_pushcclosure(lua, gmatch_next, 4);
  return 1;
}

// gsub's string replacement: %0-%9 are captures, % before anything else escapes it.
void add_text_replacement(Matcher& matcher, luaL_Buffer& buffer, const char* from, const char* to) {
  lua_State* lua = buffer.L;
  std::size_t length = 0;
  const char* replacement = lua_tolstring(lua, 3, &length);
  for (std::size_t i = 0; i < length; ++i) {
    if (replacement[i] != '%') {
      luaL_addchar(&buffer, replacement[i]);
      continue;
    }
    ++i;  // at `length`, Lua's terminating NUL is read and added, as Lua 5.1 does
    if (!std::isdigit(byte_of(replacement[i]))) {
      luaL_addchar(&buffer, replacement[i]);
    } else if (replacement[i] == '0') {
      luaL_addlstring(&buffer, from, static_cast<std::size_t>(to - from));
    } else {
      matcher.push_capture(replacement[i] - '1', from, to);
      luaL_addvalue(&buffer);
    }
  }
}

void add_replacement(Matcher& matcher, luaL_Buffer& buffer, const char* from, const char* to) {
  lua_State* lua = buffer.L;
  switch (lua_type(lua, 3)) {
    case LUA_TNUMBER:
    case LUA_TSTRING:
      add_text_replacement(matcher, buffer, from, to);
      return;
    case LUA_TFUNCTION: {
      lua_pushvalue(lua, 3);
      const int count = matcher.push_captures(from, to);
      lua_call(lua, count, 1);
      break;
    }
    case LUA_TTABLE:
      matcher.push_capture(0, from, to);
      lua_gettable(lua, 3);
      break;
    default:
      break;
  }
  if (lua_toboolean(lua, -1) == 0) {
    lua_pop(lua, 1);
    lua_pushlstring(lua, from, static_cast<std::size_t>(to - from));  // keep the original
  } else if (!lua_isstring(lua, -1)) {
    luaL_error(lua, "invalid replacement value (a %s)", luaL_typename(lua, -1));
  }
  luaL_addvalue(&buffer);
}

int gsub(lua_State* lua) {
  std::size_t length = 0;
  const char* subject = luaL_checklstring(lua, 1, &length);
  const char* pattern = luaL_checkstring(lua, 2);
  const int type = lua_type(lua, 3);
  const int replacements_max = luaL_optint(lua, 4, static_cast<int>(length + 1));
  const bool anchored = *pattern == '^';
  if (anchored) ++pattern;
  luaL_argcheck(
      lua,
      type == LUA_TNUMBER || type == LUA_TSTRING || type == LUA_TFUNCTION || type == LUA_TTABLE, 3,
      "string/function/table expected");
  luaL_Buffer buffer;
  luaL_buffinit(lua, &buffer);
  Matcher matcher(lua, subject, length, sink_of(lua));
  const char* at = subject;
  int replaced = 0;
  while (replaced < replacements_max) {
    matcher.reset();
    const char* end = matcher.match(at, pattern);
    if (end != nullptr) {
      ++replaced;
      add_replacement(matcher, buffer, at, end);
    }
    matcher.step();
    if (end != nullptr && end > at) {
      at = end;
    } else if (at < matcher.end()) {
      luaL_addchar(&buffer, *at++);
    } else {
      break;
    }
    if (anchored) break;
  }
  luaL_addlstring(&buffer, at, static_cast<std::size_t>(matcher.end() - at));
  luaL_pushresult(&buffer);
  lua_pushinteger(lua, replaced);
  return 2;
}

}  // namespace

void install(lua_State* lua, const StepSink* sink) {
  const std::pair<const char*, lua_CFunction> functions[] = {
      {"find", find}, {"match", match}, {"gmatch", gmatch}, {"gsub", gsub}};
  for (const auto& [name, function] : functions) {
    lua_pushstring(lua, name);
    lua_pushlightuserdata(lua, const_cast<StepSink*>(sink));
    lua_pushcclosure(lua, function, 1);
    lua_rawset(lua, -3);
  }
}

}  // namespace redlock_sim::lua_patterns
