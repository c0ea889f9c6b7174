#include "sim/redis/scripting.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <memory>
#include <optional>
#include <tuple>

#include "sim/kernel/assert.hpp"
#include "sim/redis/lua_cmsgpack.hpp"
#include "sim/redis/lua_patterns.hpp"
#include "sim/redis/lua_struct.hpp"
#include "sim/redis/sha1.hpp"
#include "sim/redis/text.hpp"

extern "C" {
#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>
// Debian's liblua5.1-cjson and liblua5.1-bitop (no headers are packaged).
int luaopen_cjson(lua_State* lua);
int luaopen_bit(lua_State* lua);
}

namespace redlock_sim {

using namespace redis_text;

namespace {

// The runner is the allocator's user data, set again whenever a pooled state changes hands
// (ScriptRunner::open_state); the functions' first upvalue is no longer read.
ScriptRunner& runner_of(lua_State* lua) {
  void* user_data = nullptr;
  lua_getallocf(lua, &user_data);
  return *static_cast<ScriptRunner*>(user_data);
}

// Redis's luaPushErrorBuff: "-CODE msg" keeps its code, a bare message gets "ERR"; trailing
// CR/LF trimmed. Returns "CODE msg".
std::string error_table_text(const std::string& buffer) {
  std::string code = "ERR";
  std::string message = buffer;
  if (!buffer.empty() && buffer[0] == '-') {
    const std::size_t space = buffer.find(' ');
    if (space == std::string::npos) {
      message = buffer.substr(1);
    } else {
      code = buffer.substr(1, space - 1);
      message = buffer.substr(space + 1);
    }
  }
  while (!message.empty() && (message.back() == '\r' || message.back() == '\n')) {
    message.pop_back();
  }
  while (!message.empty() && (message.front() == '\r' || message.front() == '\n')) {
    message.erase(message.begin());
  }
  return code + " " + message;
}

void push_error_table(lua_State* lua, const std::string& text) {
  lua_newtable(lua);
  lua_pushstring(lua, "err");
  lua_pushlstring(lua, text.data(), text.size());
  lua_rawset(lua, -3);
}

// Converts a command reply to Lua as Redis does under RESP2.
void push_reply(lua_State* lua, const Reply& reply) {
  lua_checkstack(lua, 4);
  switch (reply.type) {
    case ReplyType::status:
      lua_newtable(lua);
      lua_pushstring(lua, "ok");
      lua_pushlstring(lua, reply.text.data(), reply.text.size());
      lua_rawset(lua, -3);
      return;
    case ReplyType::error:
      push_error_table(lua, error_table_text("-" + reply.text));
      lua_pushstring(lua, "ignore_error_stats_update");
      lua_pushboolean(lua, 1);
      lua_rawset(lua, -3);
      return;
    case ReplyType::integer:
      lua_pushnumber(lua, static_cast<lua_Number>(reply.integer));
      return;
    case ReplyType::bulk:
      lua_pushlstring(lua, reply.text.data(), reply.text.size());
      return;
    case ReplyType::nil:
    case ReplyType::nil_array:
      lua_pushboolean(lua, 0);
      return;
    case ReplyType::array:
      lua_createtable(lua, static_cast<int>(reply.elements.size()), 0);
      for (std::size_t i = 0; i < reply.elements.size(); ++i) {
        push_reply(lua, reply.elements[i]);
        lua_rawseti(lua, -2, static_cast<int>(i + 1));
      }
      return;
  }
}

// (long long) of a double as x86-64 computes it: out-of-range and NaN give INT64_MIN.
int64_t truncate_number(lua_Number number) {
  if (std::isnan(number) || number >= 9223372036854775808.0 || number < -9223372036854775808.0) {
    return INT64_MIN;
  }
  return static_cast<int64_t>(number);
}

std::string up_to_nul(std::string text) {
  const std::size_t nul = text.find('\0');
  if (nul != std::string::npos) text.resize(nul);
  return text;
}

std::string map_newlines(std::string text) {
  for (char& c : text) {
    if (c == '\r' || c == '\n') c = ' ';
  }
  return text;
}

std::string table_string(lua_State* lua, int index, const char* field) {
  lua_pushstring(lua, field);
  lua_rawget(lua, index < 0 ? index - 1 : index);
  std::string text;
  if (lua_type(lua, -1) == LUA_TSTRING) {
    std::size_t length = 0;
    const char* data = lua_tolstring(lua, -1, &length);
    text.assign(data, length);
  }
  lua_pop(lua, 1);
  return text;
}

bool table_has_string(lua_State* lua, int index, const char* field) {
  lua_pushstring(lua, field);
  lua_rawget(lua, index < 0 ? index - 1 : index);
  const bool is_string = lua_type(lua, -1) == LUA_TSTRING;
  lua_pop(lua, 1);
  return is_string;
}

// Sets `out`, a default Reply, to the reply for the value on top of the stack; false, leaving it
// as it was, when that is a table to convert as an array. Written in place: the script's reply
// used to be moved four times on its way out, each move of its text a memcpy call.
bool single_reply(lua_State* lua, Reply& out) {
  switch (lua_type(lua, -1)) {
    case LUA_TSTRING: {
      std::size_t length = 0;
      const char* data = lua_tolstring(lua, -1, &length);
      out.type = ReplyType::bulk;
      out.text.assign(data, length);
      return true;
    }
    case LUA_TBOOLEAN:
      if (lua_toboolean(lua, -1)) {
        out.type = ReplyType::integer;
        out.integer = 1;
      }
      return true;
    case LUA_TNUMBER:
      out.type = ReplyType::integer;
      out.integer = truncate_number(lua_tonumber(lua, -1));
      return true;
    case LUA_TTABLE:
      // Both texts go through C strings (cut at a NUL); an error's trailing CR/LF are trimmed
      // (addReplyErrorFormat), then CR/LF left become spaces.
      if (table_has_string(lua, -1, "err")) {
        std::string text = up_to_nul(table_string(lua, -1, "err"));
        while (!text.empty() && (text.back() == '\r' || text.back() == '\n'))
          text.pop_back();
        out = Reply::error(map_newlines(std::move(text)));
        return true;
      }
      if (table_has_string(lua, -1, "ok")) {
        out = Reply::status(map_newlines(up_to_nul(table_string(lua, -1, "ok"))));
        return true;
      }
      return false;
    default:
      return true;  // nil
  }
}

// Converts the script's return value (top of the stack, left there) into `out` (a default
// Reply), as luaReplyToRedisReply does, but with its own stack of open arrays instead of
// recursion (C frames 7995 deep overflow a thread's stack under a sanitizer). Like Redis, a table
// nested past the Lua stack's limit (8000 slots) ends in an error element, which bounds deep and
// self-referencing tables (7995 levels below a script's result). The reply may hold at most
// `bytes_max` (a fixed cost per element plus its text; one string shared by many elements counts
// each time): past it, false, `out` left half-built (real Redis would fill its memory building
// it). The fixed cost is what sizeof(Reply) was when the limit was set (a std::vector of
// elements); Reply has shrunk since, but where a script's reply hits the limit is a result and
// stays where it was.
constexpr std::size_t reply_element_bytes = 72;

bool lua_to_reply(lua_State* lua, std::size_t bytes_max, Reply& out) {
  struct OpenArray {
    ReplyList items;
    int index = 0;  // of the element on the Lua stack above this array's table
  };
  std::vector<OpenArray> open;  // each one's table is on the Lua stack, in order
  // The value just converted is in `out` when no array is open, else in `element` until it
  // moves into the innermost open array.
  Reply element;
  bool done = false;
  std::size_t bytes = 0;
  while (true) {
    if (!done) {
      Reply& reply = open.empty() ? out : element;
      if (lua_checkstack(lua, 4) == 0) {
        reply = Reply::error("ERR reached lua stack limit");
        done = true;
      } else {
        done = single_reply(lua, reply);
        if (!done) open.emplace_back();
      }
      bytes += reply_element_bytes + (done ? reply.text.size() : 0);
      if (bytes > bytes_max) return false;
    }
    if (done) {
      if (open.empty()) return true;
      lua_pop(lua, 1);  // the element just converted
      open.back().items.push_back(std::move(element));
      element = Reply{};
      done = false;
    }
    OpenArray& array = open.back();
    lua_rawgeti(lua, -1, ++array.index);
    if (lua_type(lua, -1) == LUA_TNIL) {
      lua_pop(lua, 1);
      ReplyList items = std::move(array.items);
      open.pop_back();
      (open.empty() ? out : element) = Reply::array(std::move(items));
      done = true;
    }
  }
}

// Raises `text` (already "CODE msg") the way redis.call does, or returns it as an error table
// for redis.pcall. Only plain C values are alive when lua_error unwinds.
int raise_or_return(lua_State* lua, ScriptRunner& runner, const std::string& text, bool raise) {
  if (!raise) {
    push_error_table(lua, text);
    return 1;
  }
  runner.last_raised_error = text;
  lua_pushlstring(lua, text.data(), text.size());
  return -1;
}

// Shared body of redis.call and redis.pcall; returns the result count or -1 to raise.
int redis_call_body(lua_State* lua, bool raise) {
  ScriptRunner& runner = runner_of(lua);
  const int argc = lua_gettop(lua);
  if (argc == 0) {
    return raise_or_return(
        lua, runner, "ERR Please specify at least one argument for this redis lib call", raise);
  }
  // What the script hands to write commands (into the keyspace) counts against its Lua memory
  // budget too: a 50 MB string SET under 100 keys would be 5 GB outside the Lua state. Raised
  // before any C++ object is alive here (a Lua error unwinds with longjmp).
  // The command's table entry, looked up once for this check and the call.
  const RedisEngine::CommandSpec* spec = nullptr;
  const bool named = lua_type(lua, 1) == LUA_TSTRING;
  if (named) {
    std::size_t length = 0;
    const char* name = lua_tolstring(lua, 1, &length);
    spec = RedisEngine::find_command(std::string_view(name, length));
    if (spec != nullptr && (spec->flags & command_write) != 0) {
      for (int j = 2; j <= argc; ++j) {
        runner.argument_bytes += lua_type(lua, j) == LUA_TSTRING ? lua_objlen(lua, j) : 32;
      }
      if (runner.argument_bytes > runner.memory_bytes_max()) {
        lua_newuserdata(lua, runner.memory_bytes_max() + 1);  // raises "not enough memory"
      }
    }
  }
  // The runner's vector, reused from call to call: one allocated and freed per redis.call was
  // waste (no call nests in another: EVAL is not callable from a script).
  Command& argv = runner.call_argv;
  argv.clear();
  for (int j = 1; j <= argc; ++j) {
    if (lua_type(lua, j) == LUA_TNUMBER) {
      // Redis formats numbers with %.17g, not Lua's %.14g.
      char buffer[64];
      const int length = std::snprintf(buffer, sizeof buffer, "%.17g", lua_tonumber(lua, j));
      argv.emplace_back(buffer, static_cast<std::size_t>(length));
    } else if (lua_type(lua, j) == LUA_TSTRING) {
      std::size_t length = 0;
      const char* data = lua_tolstring(lua, j, &length);
      argv.emplace_back(data, length);
    } else {
      return raise_or_return(
          lua, runner, "ERR Lua redis lib command arguments must be strings or integers", raise);
    }
  }
  std::string refusal;
  if (!named) spec = RedisEngine::find_command(argv[0]);
  // A call a native run already made (or a caught-up run's) is answered from its record.
  const Reply reply = runner.answering_from_records()
                          ? runner.take_recorded(refusal)
                          : runner.call_from_script(argv, spec, refusal);
  // Keeps the vector's room (unless a call had many arguments) and frees the strings: no big
  // value stays alive.
  argv.clear();
  if (argv.capacity() > 64) Command().swap(argv);
  if (!refusal.empty()) return raise_or_return(lua, runner, error_table_text(refusal), raise);
  if (raise && reply.is_error()) {
    return raise_or_return(lua, runner, error_table_text("-" + reply.text), true);
  }
  push_reply(lua, reply);
  return 1;
}

int redis_call(lua_State* lua) {
  const int results = redis_call_body(lua, true);
  return results < 0 ? lua_error(lua) : results;
}

int redis_pcall(lua_State* lua) {
  return redis_call_body(lua, false);
}

int raise_message(lua_State* lua, const char* message) {
  ScriptRunner& runner = runner_of(lua);
  runner.last_raised_error = std::string("ERR ") + message;
  lua_pushstring(lua, runner.last_raised_error.c_str());
  return lua_error(lua);
}

int redis_log(lua_State* lua) {
  const int argc = lua_gettop(lua);
  if (argc < 2) return raise_message(lua, "redis.log() requires two arguments or more.");
  if (!lua_isnumber(lua, 1))
    return raise_message(lua, "First argument must be a number (log level).");
  const lua_Number level = lua_tonumber(lua, 1);
  if (level < 0 || level > 3) return raise_message(lua, "Invalid debug level.");
  // The model keeps no server log: the message is dropped.
  return 0;
}

int redis_sha1hex(lua_State* lua) {
  if (lua_gettop(lua) != 1) return raise_message(lua, "wrong number of arguments");
  std::size_t length = 0;
  const char* data = lua_tolstring(lua, 1, &length);
  char digest[41];
  {
    const std::string hex = sha1_hex(std::string_view(data == nullptr ? "" : data, length));
    std::memcpy(digest, hex.c_str(), 41);
  }
  lua_pushstring(lua, digest);
  return 1;
}

int single_field_table(lua_State* lua, const char* field) {
  if (lua_gettop(lua) != 1 || lua_type(lua, -1) != LUA_TSTRING) {
    push_error_table(lua, "ERR wrong number or type of arguments");
    return 1;
  }
  lua_newtable(lua);
  lua_pushstring(lua, field);
  lua_pushvalue(lua, -3);
  lua_rawset(lua, -3);
  return 1;
}

int redis_error_reply(lua_State* lua) {
  if (lua_gettop(lua) != 1 || lua_type(lua, -1) != LUA_TSTRING) {
    push_error_table(lua, "ERR wrong number or type of arguments");
    return 1;
  }
  {
    std::string text = lua_tostring(lua, -1);
    if (text.empty() || text[0] != '-') text = "-" + text;
    text = error_table_text(text);
    push_error_table(lua, text);
  }
  return 1;
}

int redis_status_reply(lua_State* lua) {
  return single_field_table(lua, "ok");
}

int redis_setresp(lua_State* lua) {
  if (lua_gettop(lua) != 1) return raise_message(lua, "redis.setresp() requires one argument.");
  const lua_Number version = lua_tonumber(lua, 1);
  if (version != 2 && version != 3) return raise_message(lua, "RESP version must be 2 or 3.");
  // RESP3 conversion is not modelled: replies keep their RESP2 form.
  return 0;
}

int redis_set_repl(lua_State* lua) {
  // Redis 7.0's own wording, although it wants exactly one.
  if (lua_gettop(lua) != 1) return raise_message(lua, "redis.set_repl() requires two arguments.");
  const auto flags = static_cast<int>(lua_tonumber(lua, 1));
  if ((flags & ~3) != 0) {
    return raise_message(lua,
                         "Invalid replication flags. Use REPL_AOF, REPL_REPLICA, REPL_ALL or "
                         "REPL_NONE.");
  }
  runner_of(lua).replication_flags = flags;
  return 0;
}

int redis_replicate_commands(lua_State* lua) {
  lua_pushboolean(lua, 1);
  return 1;
}

int redis_breakpoint(lua_State* lua) {
  lua_pushboolean(lua, 0);
  return 1;
}

int redis_debug(lua_State* /*lua*/) {
  return 0;
}

// __index of the real globals: reading a missing global is an error, as in Redis 7.0.
int missing_global(lua_State* lua) {
  if (!lua_isstring(lua, -1)) {
    return luaL_error(lua, "Second argument to luaProtectedTableError must be a string or number");
  }
  return luaL_error(lua, "Script attempted to access nonexistent global variable '%s'",
                    lua_tostring(lua, -1));
}

// __newindex of every protected table. luaL_error blames the script's line, as Redis's VM does.
int readonly_assignment(lua_State* lua) {
  return luaL_error(lua, "Attempt to modify a readonly table");
}

bool is_protected(lua_State* lua, int index) {
  if (lua_type(lua, index) != LUA_TTABLE) return false;
  lua_pushvalue(lua, index);
  lua_rawget(lua, lua_upvalueindex(1));
  const bool found = lua_toboolean(lua, -1) != 0;
  lua_pop(lua, 1);
  return found;
}

// rawset and setmetatable refuse protected tables, with no position (raised in C, like Redis).
int guarded_call(lua_State* lua) {
  if (is_protected(lua, 1)) {
    lua_pushstring(lua, "Attempt to modify a readonly table");
    return lua_error(lua);
  }
  lua_pushvalue(lua, lua_upvalueindex(2));
  lua_insert(lua, 1);
  lua_call(lua, lua_gettop(lua) - 1, LUA_MULTRET);
  return lua_gettop(lua);
}

// The error handler of the top-level pcall: an error table with the script's source and line.
int error_handler(lua_State* lua) {
  ScriptRunner& runner = runner_of(lua);
  lua_Debug info;
  bool located = lua_getstack(lua, 1, &info) != 0 && lua_getinfo(lua, "nSl", &info) != 0;
  if (located && std::strcmp(info.what, "C") == 0) {
    located = lua_getstack(lua, 2, &info) != 0 && lua_getinfo(lua, "nSl", &info) != 0;
  }
  if (lua_type(lua, 1) != LUA_TTABLE) {
    std::string text;
    if (lua_type(lua, 1) == LUA_TSTRING || lua_type(lua, 1) == LUA_TNUMBER) {
      std::size_t length = 0;
      const char* data = lua_tolstring(lua, 1, &length);
      text.assign(data, length);
    } else if (lua_type(lua, 1) == LUA_TBOOLEAN) {
      text = lua_toboolean(lua, 1) ? "true" : "false";
    } else {
      text = lua_typename(lua, lua_type(lua, 1));
    }
    // An error raised by redis.call already carries its code; a Lua error gets "ERR ".
    if (text != runner.last_raised_error) text = "ERR " + text;
    push_error_table(lua, text);
    lua_replace(lua, 1);
  }
  lua_settop(lua, 1);
  if (located) {
    lua_pushstring(lua, "source");
    lua_pushstring(lua, info.source);
    lua_rawset(lua, 1);
    lua_pushstring(lua, "line");
    lua_pushinteger(lua, info.currentline);
    lua_rawset(lua, 1);
  }
  return 1;
}

// The allocator of every Lua state: counts the bytes the state holds and refuses to grow past
// EngineOptions::script_memory_bytes_max (Lua then raises "not enough memory").
void* allocate(void* user_data, void* block, std::size_t old_size, std::size_t new_size) {
  ScriptRunner& runner = *static_cast<ScriptRunner*>(user_data);
  if (new_size == 0) {
    runner.heap->reallocate(block, old_size, 0);
    runner.memory_bytes -= old_size;
    return nullptr;
  }
  if (new_size > old_size &&
      runner.memory_bytes - old_size + new_size > runner.memory_bytes_max() + runner.memory_slack)
    return nullptr;
  void* grown = runner.heap->reallocate(block, old_size, new_size);
  if (grown != nullptr) runner.memory_bytes = runner.memory_bytes - old_size + new_size;
  return grown;
}

constexpr int hook_period_instructions = 1000;
const char* const killed_text = "Script killed by user with SCRIPT KILL...";

// The count hook: Redis's luaMaskCountHook with an instruction budget in place of
// lua-time-limit and an automatic SCRIPT KILL. Once killing, it fires at every new line and
// raises again, as 7.0's does, so a pcall/xpcall in a loop cannot keep the script alive (one that
// catches the kill and returns on the same line does end normally, in 7.0 too).
void count_hook(lua_State* lua, lua_Debug* info);

[[noreturn]] void raise_kill(lua_State* lua, ScriptRunner& runner) {
  if (!runner.killing) {
    runner.killing = true;
    // As 7.0: from now on the hook fires at every new line (and every backward jump).
    lua_sethook(lua, count_hook, LUA_MASKLINE, 0);
  }
  // 7.0 raises an error table whose text a pcall in the script sees as "ERR Script killed...";
  // as redis.call's errors, the text is recorded so the error handler adds no second "ERR".
  runner.last_raised_error = std::string("ERR ") + killed_text;
  lua_pushstring(lua, runner.last_raised_error.c_str());
  lua_error(lua);
  __builtin_unreachable();
}

void count_hook(lua_State* lua, lua_Debug* /*info*/) {
  ScriptRunner& runner = runner_of(lua);
  if (!runner.killing && runner.spend(hook_period_instructions)) return;
  raise_kill(lua, runner);
}

// Pattern-matching steps (lua_patterns) come out of the same budget.
void spend_pattern_steps(lua_State* lua, uint64_t steps) {
  ScriptRunner& runner = runner_of(lua);
  if (!runner.killing && runner.spend(steps)) return;
  raise_kill(lua, runner);
}
const lua_patterns::StepSink pattern_step_sink = spend_pattern_steps;

// The most bytes cjson.encode can write for the value at `index` (a string escapes to at most 6
// bytes a byte, a number to 32), walked as cjson walks it, each value a step of the script's
// budget (a table shared many times costs what encoding it costs). Tables deeper than cjson's
// limit are left for cjson to refuse.
void add_encoded_size(lua_State* lua, int index, int depth, std::size_t& bytes, uint64_t& steps) {
  constexpr int encode_depth_max = 1000;  // cjson.encode_max_depth's default
  if (++steps >= 4096) {
    spend_pattern_steps(lua, steps);
    steps = 0;
  }
  std::size_t length = 0;
  switch (lua_type(lua, index)) {
    case LUA_TSTRING:
      lua_tolstring(lua, index, &length);
      bytes += 6 * length + 2;
      return;
    case LUA_TTABLE:
      break;
    default:
      bytes += 32;
      return;
  }
  if (depth > encode_depth_max) return;
  luaL_checkstack(lua, 3, "Cannot serialise, excessive nesting");
  bytes += 2;
  lua_pushnil(lua);
  while (lua_next(lua, index) != 0) {
    const int top = lua_gettop(lua);
    add_encoded_size(lua, top - 1, depth + 1, bytes, steps);  // the key
    add_encoded_size(lua, top, depth + 1, bytes, steps);      // the value
    bytes += 2;                                               // ':' and ','
    lua_pop(lua, 1);
  }
}

// cjson.encode (upvalue 1) after that walk: an output that could not fit the Lua memory budget
// twice (cjson's own buffer, then the Lua string) is refused as the allocator would refuse it.
// Errors read as if the script had called cjson's encode itself: the arity check is made here
// (so it names this function as the caller sees it), and cjson's own errors get the caller's
// position, which they would have had.
int bounded_encode(lua_State* lua) {
  luaL_argcheck(lua, lua_gettop(lua) == 1, 1, "expected 1 argument");
  ScriptRunner& runner = runner_of(lua);
  std::size_t bytes = 0;
  uint64_t steps = 0;
  add_encoded_size(lua, 1, 1, bytes, steps);
  if (steps > 0) spend_pattern_steps(lua, steps);
  const std::size_t free_bytes =
      runner.memory_bytes_max() - std::min(runner.memory_bytes, runner.memory_bytes_max());
  if (bytes > free_bytes / 2) {
    lua_newuserdata(lua, runner.memory_bytes_max() + 1);  // raises "not enough memory"
  }
  lua_pushvalue(lua, lua_upvalueindex(1));
  lua_insert(lua, 1);
  const int status = lua_pcall(lua, 1, 1, 0);
  if (status == 0) return 1;
  if (status == LUA_ERRMEM) lua_newuserdata(lua, runner.memory_bytes_max() + 1);
  luaL_where(lua, 1);
  lua_insert(lua, -2);
  lua_concat(lua, 2);
  return lua_error(lua);
}

// A chunk starting with ESC is precompiled bytecode: Redis's Lua only parses text, so it reads
// the ESC as a symbol ("unexpected symbol near 'char(27)'"). A leading space does the same here.
bool is_binary_chunk(const char* text, std::size_t length) {
  return length > 0 && text[0] == '\x1b';
}

// Parses the string at `index` as a chunk: the function, or nil and the message.
int load_text(lua_State* lua, int index, const char* chunk_name) {
  std::size_t length = 0;
  const char* text = lua_tolstring(lua, index, &length);
  if (is_binary_chunk(text, length)) {
    lua_pushstring(lua, " ");
    lua_pushvalue(lua, index);
    lua_concat(lua, 2);
    text = lua_tolstring(lua, -1, &length);
  }
  if (luaL_loadbuffer(lua, text, length, chunk_name) == 0) return 1;
  lua_pushnil(lua);
  lua_insert(lua, -2);
  return 2;
}

// loadstring(s [, name]) that never loads bytecode.
int text_loadstring(lua_State* lua) {
  luaL_checkstring(lua, 1);
  const char* chunk_name = luaL_optstring(lua, 2, lua_tostring(lua, 1));
  return load_text(lua, 1, chunk_name);
}

// load(f [, name]) that never loads bytecode: reads f's pieces, then parses them as text.
// (Only Lua values are alive while the reader runs: a Lua error unwinds with longjmp.)
int text_load(lua_State* lua) {
  luaL_checktype(lua, 1, LUA_TFUNCTION);
  const char* chunk_name = luaL_optstring(lua, 2, "=(load)");
  lua_settop(lua, 2);
  luaL_Buffer buffer;
  luaL_buffinit(lua, &buffer);
  while (true) {
    lua_pushvalue(lua, 1);
    // Lua's load reads in protected mode: an error in the reader is its result (nil, error).
    if (lua_pcall(lua, 0, 1, 0) != 0) {
      lua_pushnil(lua);
      lua_insert(lua, -2);
      return 2;
    }
    if (lua_isnil(lua, -1)) {
      lua_pop(lua, 1);
      break;
    }
    if (!lua_isstring(lua, -1)) {
      lua_pushnil(lua);
      luaL_where(lua, 1);  // Lua raises it from the reader: the script's position
      lua_pushstring(lua, "reader function must return a string");
      lua_concat(lua, 2);
      return 2;
    }
    const bool done = lua_objlen(lua, -1) == 0;
    luaL_addvalue(&buffer);
    if (done) break;
  }
  luaL_pushresult(&buffer);
  return load_text(lua, lua_gettop(lua), chunk_name);
}

// getmetatable, as Lua's, except that a string's metatable is seen through a read-only proxy
// (upvalue 2) and a protected table (upvalue 1's set) shows only its __metatable, if any: real
// 7.0 gives nil for the library tables, and their metatables would lead to the real tables.
int guarded_getmetatable(lua_State* lua) {
  luaL_checkany(lua, 1);
  if (lua_type(lua, 1) == LUA_TSTRING) {
    lua_pushvalue(lua, lua_upvalueindex(2));
    return 1;
  }
  if (lua_getmetatable(lua, 1) == 0) {
    lua_pushnil(lua);
    return 1;
  }
  lua_pushstring(lua, "__metatable");
  lua_rawget(lua, -2);
  if (!lua_isnil(lua, -1) || is_protected(lua, 1)) return 1;
  lua_pop(lua, 1);
  return 1;
}

// Redis's math.random and math.randomseed: its redisLrand48 (the drand48 recurrence on 48 bits,
// returning the top 31), one state for every script of the server, unseeded state
// 0x1234ABCD330E; randomseed(n) sets n's 32 bits above 0x330E.
constexpr uint64_t random_mask = (uint64_t{1} << 48) - 1;
constexpr uint64_t random_max = 2147483647;  // REDIS_LRAND48_MAX

uint64_t next_random(ScriptRunner& runner) {
  runner.random_state = (runner.random_state * 0x5DEECE66DULL + 0xB) & random_mask;
  return runner.random_state >> 17;
}

int redis_math_random(lua_State* lua) {
  ScriptRunner& runner = runner_of(lua);
  const lua_Number r = static_cast<lua_Number>(next_random(runner) % random_max) /
                       static_cast<lua_Number>(random_max);
  switch (lua_gettop(lua)) {
    case 0:
      lua_pushnumber(lua, r);
      break;
    case 1: {
      const int upper = luaL_checkint(lua, 1);
      luaL_argcheck(lua, 1 <= upper, 1, "interval is empty");
      lua_pushnumber(lua, std::floor(r * upper) + 1);
      break;
    }
    case 2: {
      const int lower = luaL_checkint(lua, 1);
      const int upper = luaL_checkint(lua, 2);
      luaL_argcheck(lua, lower <= upper, 2, "interval is empty");
      lua_pushnumber(lua, std::floor(r * (upper - lower + 1)) + lower);
      break;
    }
    default:
      return luaL_error(lua, "wrong number of arguments");
  }
  return 1;
}

int redis_math_randomseed(lua_State* lua) {
  const auto seed = static_cast<uint32_t>(luaL_checkint(lua, 1));
  runner_of(lua).random_state = (static_cast<uint64_t>(seed) << 16) | 0x330E;
  return 0;
}

// Each function keeps one upvalue, as when it held its runner: the state's allocations, which
// scripts can see through collectgarbage("count"), stay what they were.
void set_function(lua_State* lua, const char* name, lua_CFunction f) {
  lua_pushstring(lua, name);
  lua_pushlightuserdata(lua, nullptr);
  lua_pushcclosure(lua, f, 1);
  lua_rawset(lua, -3);
}

void set_number(lua_State* lua, const char* name, lua_Number value) {
  lua_pushstring(lua, name);
  lua_pushnumber(lua, value);
  lua_rawset(lua, -3);
}

// Leaves on the stack a read-only proxy of the table at the top (which it pops), and records
// the proxy in the protected set at `protected_index`.
void make_readonly_proxy(lua_State* lua, int protected_index) {
  lua_newtable(lua);  // target proxy
  lua_newtable(lua);  // target proxy metatable
  lua_pushstring(lua, "__index");
  lua_pushvalue(lua, -4);
  lua_rawset(lua, -3);
  lua_pushstring(lua, "__newindex");
  lua_pushcfunction(lua, readonly_assignment);
  lua_rawset(lua, -3);
  lua_setmetatable(lua, -2);  // target proxy
  lua_remove(lua, -2);        // proxy
  lua_pushvalue(lua, -1);
  lua_pushboolean(lua, 1);
  lua_rawset(lua, protected_index);
}

}  // namespace

// A Lua state and the heap it lives in. One with a snapshot of its heap is handed from runner to
// runner (open_state, close_state): restored, it is byte for byte the state open_state built,
// at the same addresses, so no script can tell it from a new one; building one costs about
// 300 000 instructions and closing it about 150 000, restoring it a copy of its blocks.
struct LuaStateHome {
  explicit LuaStateHome(bool image) : heap(image) {}
  LuaHeap heap;
  lua_State* lua = nullptr;
  // What open_state left, kept with the snapshot.
  std::size_t memory_bytes = 0;
  int environment_ref = 0;
  int error_handler_ref = 0;
};

namespace {

// Idle homes of this thread. Their number is bounded, and so is the number of homes with a
// snapshot in all (a snapshot doubles a state's memory; a world of 1000 nodes builds the states
// past the bound as before).
constexpr std::size_t idle_homes_max = 64;
constexpr std::size_t homes_with_snapshot_max = 256;
std::atomic<std::size_t> homes_with_snapshot{0};
struct IdleHomes {
  std::vector<std::unique_ptr<LuaStateHome>> homes;
  bool reuse = true;
  std::size_t built = 0;
  std::size_t collections = 0;
  // A state went on this thread: states are handed on here (a next world, a restart), so new
  // ones get an image. Until then none does, and a single run pays neither the image's copy nor
  // its memory.
  bool one_went = false;
  ~IdleHomes();
};
thread_local IdleHomes idle_homes;
// Set when this thread's pool is gone (thread exit): a runner that goes after it closes its
// state instead. Trivially destructible, so it can still be read then.
thread_local bool idle_homes_gone = false;
IdleHomes::~IdleHomes() {
  homes_with_snapshot -= homes.size();
  idle_homes_gone = true;
}

// cjson keeps its encoding buffer in malloc'd memory outside the Lua heap, which a restore cannot
// put back: the snapshot is taken with the buffer released (encode_keep_buffer(false), which
// allocates nothing in Lua) and a state taken from the pool gets a new one (true), as a new state
// has; a state given back releases its buffer first.
void keep_encode_buffer(lua_State* lua, bool keep) {
  lua_getglobal(lua, "cjson");
  lua_getfield(lua, -1, "encode_keep_buffer");
  lua_pushboolean(lua, keep ? 1 : 0);
  lua_call(lua, 1, 0);
  lua_pop(lua, 1);
}

}  // namespace

// ---- Lock scripts run in C++ ----
//
// The compare-and-delete and compare-and-PEXPIRE scripts of lock_impls/families/scripts.hpp are
// a third of an exploration's instructions when Lua runs them. run_native makes the same
// redis.call calls through call_from_script, in the same order with the same arguments (the
// command names spelled as the bodies spell them), and computes the reply as the body and the
// Lua-to-Redis conversion would (a DEL's or PEXPIRE's integer goes through a Lua number). Two
// things only Lua would have done are made exact separately:
// - A call that raises (an error reply, a refusal, an argument past the memory budget), or a
//   reply of a kind the body does not expect, hands the script to Lua: the calls already made
//   are answered from their records (take_recorded), so Lua's error text, traceback and
//   everything after are Lua's own, and the engine is called once per call.
// - What Lua would have allocated (KEYS/ARGV, the replies as Lua values) changes the state's
//   memory count and its collector's pacing, which a later script can observe. Each native run
//   is therefore owed to the state (append_owed) and made in Lua, with its recorded replies,
//   before anything else uses the state (catch_up: another script, compiling one). A state that
//   goes (end of the world, restart, SCRIPT FLUSH) is restored or closed, so its owed runs go
//   with it. A native run is made only when Lua could not have run out of memory in it: the
//   state's count, plus an upper bound of what every owed run and this one allocate, times four
//   (strings-table and stack growth), stays under the budget less 1 MB (may_run_natively).
//   The runs stay short (under the count hook's 1000 instructions), so no instruction budget,
//   busy threshold or SCRIPT KILL can reach them.

namespace {

thread_local bool native_scripts_on = true;
thread_local std::size_t owed_bytes_on_thread = 0;
constexpr std::size_t owed_bytes_max = 4u << 20;             // a state's owed runs, encoded
constexpr std::size_t owed_bytes_on_thread_max = 64u << 20;  // all states' of a thread
constexpr std::size_t lua_bytes_per_run = 4096;              // tables, stack, globals' slots
constexpr std::size_t lua_bytes_per_string = 64;             // a string's header, rounded up
constexpr std::size_t native_text_bytes_max = 64u << 10;     // a C++ run's arguments, a reply
// What a state as built holds at most (about 80 KB; open_state checks it), counted for a state
// not yet opened.
constexpr std::size_t state_as_built_bytes_max = 1u << 20;

// An upper bound of what compiling a body of `size` bytes allocates in Lua (the function, its
// constants and code, the lexer's buffer).
std::size_t compile_lua_bytes(std::size_t size) {
  return (64u << 10) + 32 * size;
}

uint64_t take_word(const char*& at) {
  uint64_t word = 0;
  std::memcpy(&word, at, sizeof word);
  at += sizeof word;
  return word;
}

std::string_view take_text(const char*& at) {
  const auto size = static_cast<std::size_t>(take_word(at));
  const std::string_view text(at, size);
  at += size;
  return text;
}

// Writes an owed run in room reserved for it.
struct OwedWriter {
  char* at;
  void word(uint64_t value) {
    std::memcpy(at, &value, sizeof value);
    at += sizeof value;
  }
  void text(std::string_view value) {
    word(value.size());
    std::memcpy(at, value.data(), value.size());
    at += value.size();
  }
};

// A recorded reply: only the kinds a native run goes on from are owed. owed_argument is a bulk
// whose bytes are one of the run's arguments (a lock's own token read back by its GET), written as
// the argument's index instead of a second copy of its text.
enum : uint64_t { owed_nil = 0, owed_bulk = 1, owed_integer = 2, owed_argument = 3 };
// What an owed entry is: a run, or a lock script's body to compile.
enum : uint64_t { owed_run = 0, owed_compile = 1 };

}  // namespace

void ScriptRunner::reuse_states(bool reuse) {
  idle_homes.reuse = reuse;
  if (!reuse) {
    homes_with_snapshot -= idle_homes.homes.size();
    idle_homes.homes.clear();
  }
}

std::size_t ScriptRunner::states_built() {
  return idle_homes.built;
}

std::size_t ScriptRunner::states_with_image() {
  return homes_with_snapshot;
}

std::size_t ScriptRunner::states_collected() {
  return idle_homes.collections;
}

ScriptRunner::ScriptRunner(RedisEngine& engine) : engine_(engine) {
  // The server's redisLrand48 state before any seeding; SCRIPT FLUSH keeps it, as Redis's does.
  random_state = 0x1234ABCD330EULL;
  // The Lua state is opened when first used (catch_up): a node that only runs the lock scripts
  // in C++ never needs one.
}

ScriptRunner::~ScriptRunner() {
  close_state();
}

void ScriptRunner::close_state() {
  // The state's count no longer matters (a restore sets it anew): nothing here may be refused.
  memory_slack = std::numeric_limits<std::size_t>::max() / 2;
  if (lua_ != nullptr && home_->heap.has_snapshot() && !idle_homes_gone && idle_homes.reuse &&
      idle_homes.homes.size() < idle_homes_max) {
    keep_encode_buffer(lua_, false);
    // A cjson.new() instance keeps a buffer outside Lua too, freed by its finalizer. If one may
    // have been made since the state was handed out (a new big block of the size of cjson's
    // config, the largest block luaopen_cjson allocates: the heap watches for it), the KEYS and
    // ARGV of the last call (the only globals a script can store into) go, and a full collection
    // runs the finalizers, as closing the state would. It costs about 150 000 instructions (3 %
    // of an exploration), so only then.
    if (heap->watched_size_seen()) {
      for (const char* name : {"KEYS", "ARGV"}) {
        lua_pushstring(lua_, name);
        lua_rawget(lua_, LUA_GLOBALSINDEX);
        const bool present = !lua_isnil(lua_, -1);
        lua_pop(lua_, 1);
        if (!present) continue;  // setting a missing key to nil would allocate
        lua_pushstring(lua_, name);
        lua_pushnil(lua_);
        lua_rawset(lua_, LUA_GLOBALSINDEX);
      }
      lua_gc(lua_, LUA_GCCOLLECT, 0);
      ++idle_homes.collections;
    }
    idle_homes.homes.push_back(std::move(home_));
  } else if (lua_ != nullptr) {
    if (home_->heap.has_snapshot()) --homes_with_snapshot;
    lua_close(lua_);  // its finalizers free what cjson holds outside Lua
  }
  if (lua_ != nullptr && !idle_homes_gone) idle_homes.one_went = true;
  // Owed runs go with the state: it is restored to the state as built, or closed.
  forget_owed();
  memory_slack = 0;
  home_.reset();
  heap = nullptr;
  lua_ = nullptr;
  functions_.clear();
  last_function_ = functions_.end();
  sha_of_body_.clear();
  last_body_ = sha_of_body_.end();
  last_function_is_last_bodys_ = false;
}

void ScriptRunner::flush() {
  close_state();  // the next use opens a state as built (catch_up)
}

bool ScriptRunner::spend(uint64_t instructions) {
  instructions_used += instructions;
  if (instructions_used > busy_at_ && !busy_) note_busy();
  return instructions_used <= stop_at_;
}

void ScriptRunner::note_busy() {
  busy_ = true;
  if (wrote) return;  // it cannot be killed: nothing to keep
  Rerun rerun{.argv = current_->argv,
              .sha = *sha_,
              .key_count = key_count_,
              .now_ms = current_->now_ms,
              .wall_now = current_->wall_now,
              .from_master = current_->from_master,
              .random_state = random_state_at_start_,
              .keyspace = engine_.snapshot(),
              .expired_keys = engine_.expired_keys_ - expired_before_busy_.size()};
  for (SnapshotEntry& entry : expired_before_busy_)
    rerun.keyspace.push_back(std::move(entry));
  expired_before_busy_.clear();
  rerun_ = std::move(rerun);
}

void ScriptRunner::note_expired(const std::string& key, const Value& value) {
  if (busy_ || wrote || replaying_ || current_ == nullptr) return;
  expired_before_busy_.push_back(SnapshotEntry{key, value});
}

Reply ScriptRunner::kill_last(uint64_t instructions, std::vector<Propagated>& propagate) {
  SIM_ASSERT(rerun_.has_value());
  Rerun rerun = std::move(*rerun_);
  rerun_.reset();
  engine_.restore(rerun.keyspace, rerun.wall_now, /*skip_expired=*/false);
  engine_.expired_keys_ = rerun.expired_keys;
  random_state = rerun.random_state;
  RedisEngine::Call call{rerun.argv,        rerun.now_ms, rerun.wall_now,
                         rerun.from_master, false,        propagate};
  replaying_ = true;
  stop_at_ = instructions;
  Reply reply = run(call, rerun.sha, rerun.key_count, functions_.at(rerun.sha));
  replaying_ = false;
  return reply;
}

std::size_t ScriptRunner::memory_bytes_max() const {
  return engine_.options().script_memory_bytes_max;
}

void ScriptRunner::open_state() {
  if (LuaHeap::pooled && idle_homes.reuse && !idle_homes.homes.empty()) {
    home_ = std::move(idle_homes.homes.back());
    idle_homes.homes.pop_back();
    home_->heap.restore();
    heap = &home_->heap;
    lua_ = home_->lua;
    lua_setallocf(lua_, allocate, this);
    memory_bytes = home_->memory_bytes;
    environment_ref_ = home_->environment_ref;
    error_handler_ref_ = home_->error_handler_ref;
    keep_encode_buffer(lua_, true);
    SIM_ASSERT(memory_bytes <= state_as_built_bytes_max);
    return;
  }
  const bool image = LuaHeap::pooled && idle_homes.reuse && idle_homes.one_went &&
                     homes_with_snapshot < homes_with_snapshot_max;
  home_ = std::make_unique<LuaStateHome>(image);
  heap = &home_->heap;
  build_state();
  ++idle_homes.built;
  if (image) {
    ++homes_with_snapshot;
    keep_encode_buffer(lua_, false);
    home_->heap.snapshot();
    home_->lua = lua_;
    home_->memory_bytes = memory_bytes;
    home_->environment_ref = environment_ref_;
    home_->error_handler_ref = error_handler_ref_;
    keep_encode_buffer(lua_, true);
  }
  SIM_ASSERT(memory_bytes <= state_as_built_bytes_max);
}

void ScriptRunner::build_state() {
  memory_bytes = 0;
  lua_ = lua_newstate(allocate, this);
  SIM_ASSERT(lua_ != nullptr);
  lua_State* lua = lua_;
  const std::pair<const char*, lua_CFunction> libraries[] = {{"", luaopen_base},
                                                             {LUA_TABLIBNAME, luaopen_table},
                                                             {LUA_STRLIBNAME, luaopen_string},
                                                             {LUA_MATHLIBNAME, luaopen_math}};
  for (const auto& [name, open] : libraries) {
    lua_pushcfunction(lua, open);
    lua_pushstring(lua, name);
    lua_call(lua, 1, 0);
  }
  // cjson and bit, from Debian's lua-cjson 2.1.0 and lua-bitop 1.0.2 (the versions Redis 7.0
  // bundles), as globals like Redis's luaLoadLib makes them; read-only below.
  for (const auto& [name, open] :
       {std::pair<const char*, lua_CFunction>{"cjson", luaopen_cjson}, {"bit", luaopen_bit}}) {
    lua_pushcfunction(lua, open);
    lua_pushstring(lua, name);
    heap->record_big_sizes(open == luaopen_cjson);  // its config's size (see close_state)
    lua_call(lua, 1, 1);
    heap->record_big_sizes(false);
    lua_setglobal(lua, name);
  }
  // struct: the model's own (lua_struct.cpp), no Debian package carries Redis's.
  lua_struct::open(lua);
  lua_setglobal(lua, "struct");
  // cmsgpack: the model's own too (lua_cmsgpack.cpp), its walks charged to the script's budget.
  lua_cmsgpack::open(lua, &pattern_step_sink);
  lua_setglobal(lua, "cmsgpack");
  lua_getglobal(lua, "cjson");
  lua_pushstring(lua, "encode");
  lua_pushstring(lua, "encode");
  lua_rawget(lua, -3);
  lua_pushcclosure(lua, bounded_encode, 1);
  lua_rawset(lua, -3);
  lua_pop(lua, 1);
  // Redis 7.0's deny list, and what 7.0's Lua does not have (getfenv/setfenv would reach the
  // real globals, newproxy makes userdata whose __gc runs at SCRIPT FLUSH).
  for (const char* name : {"dofile", "loadfile", "print", "getfenv", "setfenv", "newproxy"}) {
    lua_pushnil(lua);
    lua_setglobal(lua, name);
  }
  lua_pushcfunction(lua, text_loadstring);
  lua_setglobal(lua, "loadstring");
  lua_pushcfunction(lua, text_load);
  lua_setglobal(lua, "load");
  lua_getglobal(lua, "string");
  lua_patterns::install(lua, &pattern_step_sink);
  lua_pop(lua, 1);
  lua_getglobal(lua, "math");
  set_function(lua, "random", redis_math_random);
  set_function(lua, "randomseed", redis_math_randomseed);
  lua_pop(lua, 1);
  lua_newtable(lua);  // the redis library
  set_function(lua, "call", redis_call);
  set_function(lua, "pcall", redis_pcall);
  set_function(lua, "log", redis_log);
  set_function(lua, "sha1hex", redis_sha1hex);
  set_function(lua, "error_reply", redis_error_reply);
  set_function(lua, "status_reply", redis_status_reply);
  set_function(lua, "setresp", redis_setresp);
  set_function(lua, "set_repl", redis_set_repl);
  set_function(lua, "replicate_commands", redis_replicate_commands);
  set_function(lua, "breakpoint", redis_breakpoint);
  set_function(lua, "debug", redis_debug);
  set_number(lua, "LOG_DEBUG", 0);
  set_number(lua, "LOG_VERBOSE", 1);
  set_number(lua, "LOG_NOTICE", 2);
  set_number(lua, "LOG_WARNING", 3);
  set_number(lua, "REPL_NONE", 0);
  set_number(lua, "REPL_AOF", 1);
  set_number(lua, "REPL_SLAVE", 2);
  set_number(lua, "REPL_REPLICA", 2);
  set_number(lua, "REPL_ALL", 3);
  set_number(lua, "REDIS_VERSION_NUM", 0x0007000f);
  lua_pushstring(lua, "REDIS_VERSION");
  lua_pushstring(lua, "7.0.15");
  lua_rawset(lua, -3);
  lua_setglobal(lua, "redis");

  lua_newtable(lua);  // the protected set: proxies that rawset/setmetatable refuse
  const int protected_index = lua_gettop(lua);
  for (const char* name :
       {"string", "math", "table", "coroutine", "redis", "cjson", "bit", "struct", "cmsgpack"}) {
    lua_getglobal(lua, name);
    make_readonly_proxy(lua, protected_index);
    lua_setglobal(lua, name);
  }
  for (const char* name : {"rawset", "setmetatable"}) {
    lua_pushvalue(lua, protected_index);
    lua_getglobal(lua, name);
    lua_pushcclosure(lua, guarded_call, 2);
    lua_setglobal(lua, name);
  }
  // table.insert writes raw into its table: refused on protected ones, as 7.0 refuses.
  lua_getglobal(lua, "table");
  lua_getmetatable(lua, -1);
  lua_pushstring(lua, "__index");
  lua_rawget(lua, -2);  // the real table library
  lua_pushstring(lua, "insert");
  lua_pushvalue(lua, protected_index);
  lua_pushstring(lua, "insert");
  lua_rawget(lua, -4);
  lua_pushcclosure(lua, guarded_call, 2);
  lua_rawset(lua, -3);
  lua_pop(lua, 3);
  // Strings index the read-only `string` proxy, and getmetatable('') gives a read-only proxy of
  // their metatable, so no script can change string methods for the next.
  lua_pushstring(lua, "");
  lua_getmetatable(lua, -1);
  lua_pushstring(lua, "__index");
  lua_getglobal(lua, "string");
  lua_rawset(lua, -3);
  make_readonly_proxy(lua, protected_index);  // [.., "", proxy of the string metatable]
  lua_pushvalue(lua, protected_index);
  lua_insert(lua, -2);
  lua_pushcclosure(lua, guarded_getmetatable, 2);
  lua_setglobal(lua, "getmetatable");
  lua_pop(lua, 1);
  // The scripts' environment: a read-only proxy of the globals, whose own metatable is hidden
  // behind another read-only proxy so it cannot be unlocked.
  lua_pushvalue(lua, LUA_GLOBALSINDEX);
  make_readonly_proxy(lua, protected_index);
  const int environment_index = lua_gettop(lua);
  lua_getmetatable(lua, environment_index);
  lua_pushstring(lua, "__metatable");
  lua_newtable(lua);
  make_readonly_proxy(lua, protected_index);
  lua_rawset(lua, -3);
  lua_pop(lua, 1);
  lua_pushvalue(lua, environment_index);
  lua_setglobal(lua, "_G");
  // The real globals: missing names are errors, new names refused.
  lua_newtable(lua);
  lua_pushstring(lua, "__index");
  lua_pushcfunction(lua, missing_global);
  lua_rawset(lua, -3);
  lua_pushstring(lua, "__newindex");
  lua_pushcfunction(lua, readonly_assignment);
  lua_rawset(lua, -3);
  lua_setmetatable(lua, LUA_GLOBALSINDEX);
  lua_pushvalue(lua, environment_index);
  environment_ref_ = luaL_ref(lua, LUA_REGISTRYINDEX);
  lua_pushlightuserdata(lua, nullptr);  // as set_function's upvalue
  lua_pushcclosure(lua, error_handler, 1);
  error_handler_ref_ = luaL_ref(lua, LUA_REGISTRYINDEX);
  lua_settop(lua, 0);
}

bool ScriptRunner::create_function(const std::string& sha, const std::string& body,
                                   std::string& error) {
  if (functions_.count(sha) != 0) return true;
  const Native native = native_kind(sha);
  if (native != Native::none && native_scripts_on &&
      may_run_natively(compile_lua_bytes(body.size()))) {
    // A lock script's body compiles when the state is next used, in its place among the owed
    // runs (it is one of the known texts: it compiles).
    Function& function = functions_.emplace(sha, Function{0, native}).first->second;
    append_owed_compile(function, body);
    return true;
  }
  catch_up();  // compiling allocates in Lua: the state must be the one a Lua-only run has
  // Bytecode is parsed as text, as Redis's Lua does (see is_binary_chunk).
  const std::string source = is_binary_chunk(body.data(), body.size()) ? " " + body : body;
  if (luaL_loadbuffer(lua_, source.data(), source.size(), "@user_script") != 0) {
    error = std::string("ERR Error compiling script (new function): ") + lua_tostring(lua_, -1);
    lua_pop(lua_, 1);
    return false;
  }
  lua_rawgeti(lua_, LUA_REGISTRYINDEX, environment_ref_);
  lua_setfenv(lua_, -2);
  functions_.emplace(sha, Function{luaL_ref(lua_, LUA_REGISTRYINDEX), native});
  return true;
}

namespace {

// The SHA-1 of a script body, remembered on this thread: every node of every world hashes the
// same few lock scripts (a hash costs about 4000 instructions a 64-byte block). Bounded: bodies
// up to 4 KB, and the memory emptied at 64 of them.
std::string body_sha1_hex(const std::string& body) {
  constexpr std::size_t body_bytes_max = 4096;
  constexpr std::size_t bodies_max = 64;
  thread_local std::map<std::string, std::string, std::less<>> known;
  if (body.size() > body_bytes_max) return sha1_hex(body);
  if (const auto it = known.find(body); it != known.end()) return it->second;
  if (known.size() == bodies_max) known.clear();
  return known.emplace(body, sha1_hex(body)).first->second;
}

}  // namespace

Reply ScriptRunner::eval(RedisEngine::Call& call, bool by_sha) {
  if (by_sha && call.argv[1].size() != 40) {
    return Reply::error("NOSCRIPT No matching script. Please use EVAL.");
  }
  // The key count is nearly always one digit, read here without parse_int64's call and checks.
  const std::string& count_text = call.argv[2];
  const auto digit = static_cast<unsigned>(static_cast<unsigned char>(count_text[0])) - '0';
  int64_t key_count = digit;
  if ((count_text.size() != 1 || digit > 9) && !parse_int64(count_text, key_count)) {
    return Reply::error(not_integer);
  }
  if (key_count > static_cast<int64_t>(call.argv.size()) - 3) {
    return Reply::error("ERR Number of keys can't be greater than number of args");
  }
  if (key_count < 0) return Reply::error("ERR Number of keys can't be negative");
  // The digest is referred to where it is (the request, or the body -> SHA cache, which no
  // script can change while it runs): a copy of it cost an allocation a call.
  std::string lowered;  // an EVALSHA digest sent with capitals, in lower case
  const std::string* sha = &call.argv[1];
  if (by_sha) {
    const bool lower =
        std::none_of(sha->begin(), sha->end(), [](char c) { return c >= 'A' && c <= 'Z'; });
    if (!lower) {
      lowered = to_lower(*sha);
      sha = &lowered;
    }
  } else {
    // A client sends the same body again and again: the last one is compared first.
    if (last_body_ == sha_of_body_.end() || last_body_->first != call.argv[1]) {
      auto known = sha_of_body_.find(call.argv[1]);
      if (known == sha_of_body_.end()) {
        known = sha_of_body_.emplace(call.argv[1], body_sha1_hex(call.argv[1])).first;
      }
      last_body_ = known;
      last_function_is_last_bodys_ = false;
    }
    sha = &last_body_->second;
  }
  // The last body's function, when it was the last one run, is taken without comparing digests.
  auto found = !by_sha && last_function_is_last_bodys_ ? last_function_
               : last_function_ != functions_.end() && last_function_->first == *sha
                   ? last_function_
                   : functions_.find(*sha);
  if (found == functions_.end()) {
    if (by_sha) return Reply::error("NOSCRIPT No matching script. Please use EVAL.");
    std::string error;
    if (!create_function(*sha, call.argv[1], error)) return Reply::error(error);
    found = functions_.find(*sha);
  }
  last_function_ = found;
  last_function_is_last_bodys_ = !by_sha;
  return run(call, found->first, key_count, found->second);
}

namespace {

// `argv`: a Command, or a caught-up run's strings (the same pushes either way).
template <typename Strings>
void set_array_global(lua_State* lua, std::string_view name, const Strings& argv, std::size_t from,
                      std::size_t count) {
  lua_pushlstring(lua, name.data(), name.size());
  lua_createtable(lua, static_cast<int>(count), 0);
  for (std::size_t i = 0; i < count; ++i) {
    const auto& item = argv[from + i];
    lua_pushlstring(lua, item.data(), item.size());
    lua_rawseti(lua, -2, static_cast<int>(i + 1));
  }
  lua_rawset(lua, LUA_GLOBALSINDEX);
}

// Runs the compiled function `ref` with KEYS and ARGV taken from argv[from..] (`keys` keys, the
// rest arguments), the error handler `handler_ref` below it and the count hook on for the call:
// what every run does in Lua, a caught-up run too, step for step. lua_pcall's status.
template <typename Strings>
int call_in_lua(lua_State* lua, int handler_ref, int ref, const Strings& argv, std::size_t from,
                std::size_t keys) {
  set_array_global(lua, "KEYS", argv, from, keys);
  set_array_global(lua, "ARGV", argv, from + keys, argv.size() - from - keys);
  lua_rawgeti(lua, LUA_REGISTRYINDEX, handler_ref);
  lua_rawgeti(lua, LUA_REGISTRYINDEX, ref);
  lua_sethook(lua, count_hook, LUA_MASKCOUNT, hook_period_instructions);
  const int status = lua_pcall(lua, 0, 1, -2);
  lua_sethook(lua, nullptr, 0, 0);
  return status;
}

}  // namespace

Reply ScriptRunner::run(RedisEngine::Call& call, const std::string& sha, int64_t key_count,
                        const Function& function) {
  current_ = &call;
  effects_from_ = call.propagate.size();
  replication_flags = 3;
  last_raised_error.clear();
  instructions_used = 0;
  argument_bytes = 0;
  killing = false;
  wrote = false;
  sha_ = &sha;
  key_count_ = key_count;
  random_state_at_start_ = random_state;
  busy_ = false;
  expired_before_busy_.clear();
  if (!replaying_) rerun_.reset();
  Reply reply;
  NativeRun native = NativeRun::not_run;
  if (function.native != Native::none && native_scripts_on && !replaying_) {
    native = run_native(function, call, key_count, reply);
  }
  int status = 0;
  lua_State* lua = nullptr;  // no state may be open yet (catch_up opens one)
  if (native != NativeRun::done) {
    // Only Lua's count hook reads the bounds (a native run stays under its first period), so
    // they are set only for a run made in Lua.
    if (!replaying_) {
      busy_at_ = engine_.busy_instructions();
      stop_at_ = engine_.options().script_instructions_max;
    } else {
      busy_at_ = UINT64_MAX;  // stop_at_ is the SCRIPT KILL's (kill_last)
    }
    catch_up();
    lua = lua_;
    if (native == NativeRun::partly) {
      // Lua makes the calls the native run made again, answered from their records; what they
      // count against the memory budget it counts again too.
      argument_bytes = 0;
      answering_ = &prefix_;
      answered_ = 0;
    }
    SIM_ASSERT(function.ref != 0);  // compiled by now
    status = call_in_lua(lua, error_handler_ref_, function.ref, call.argv, 3,
                         static_cast<std::size_t>(key_count));
    // The Lua body made at least the calls the native run made, in the same order.
    SIM_ASSERT(answering_ == nullptr || answered_ == answering_->size());
    answering_ = nullptr;
    prefix_.clear();
  }
  // Reading the result runs outside any protected call, where a failed allocation (growing the
  // Lua stack for a deep reply) would abort: a little room past the budget covers it.
  memory_slack = 1u << 20;
  current_ = nullptr;
  expired_before_busy_.clear();
  ScriptRun& record = engine_.script_run_;
  record.instructions = instructions_used;
  record.busy = busy_;
  record.capped = killing && !replaying_;
  if (busy_) ++engine_.script_limits_.busy;
  if (killing && !replaying_) {
    ++(wrote ? engine_.script_limits_.unkillable : engine_.script_limits_.killed);
  }
  if (native == NativeRun::done) {
    // `reply` is the script's.
  } else if (status == LUA_ERRMEM) {
    // Real Redis has no such limit (it would exhaust the machine); the model reports it.
    ++engine_.script_limits_.out_of_memory;
    reply = Reply::error("ERR Error running script " + sha + ", out of the model's Lua memory (" +
                         std::to_string(memory_bytes_max()) + " bytes)");
  } else if (status != 0) {
    if (lua_type(lua, -1) == LUA_TTABLE) {
      std::string text = table_string(lua, -1, "err");
      const std::string source = table_string(lua, -1, "source");
      lua_pushstring(lua, "line");
      lua_rawget(lua, -2);
      const bool has_line = lua_type(lua, -1) == LUA_TNUMBER;
      const std::string line = has_line ? lua_tostring(lua, -1) : "";
      lua_pop(lua, 1);
      if (!source.empty() && has_line)
        text += " script: " + sha + ", on " + source + ":" + line + ".";
      reply = Reply::error(map_newlines(text));
    } else {
      reply = Reply::error("ERR Error running script " + sha + ", execution failure");
    }
  } else {
    if (!lua_to_reply(lua, memory_bytes_max(), reply)) {
      ++engine_.script_limits_.out_of_memory;
      reply = Reply::error("ERR Error running script " + sha +
                           ", its reply is larger than the model's Lua memory (" +
                           std::to_string(memory_bytes_max()) + " bytes)");
    }
  }
  if (native != NativeRun::done) lua_settop(lua, 0);
  memory_slack = 0;
  // The script's writes go out as its effects, atomically when there are several.
  if (call.propagate.size() - effects_from_ > 1) {
    call.propagate.insert(call.propagate.begin() + static_cast<std::ptrdiff_t>(effects_from_),
                          Propagated{make_command("MULTI")});
    call.propagate.push_back(Propagated{make_command("EXEC")});
  }
  return reply;
}

void ScriptRunner::run_known_scripts_natively(bool native) {
  native_scripts_on = native;
}

ScriptRunner::Native ScriptRunner::native_kind(std::string_view sha) {
  // The SHA-1 of lock_impls/families/scripts.hpp's bodies (tests/unit/native_scripts_test.cpp
  // checks them against the texts).
  if (sha == "6218090d6212d1293589b15ca6ac1a5ad5f66cb6") return Native::delete_if_value;
  if (sha == "0ffc526cdc6169f716c6d18443b77c025a082930") {
    return Native::delete_if_value_or_report_missing;
  }
  if (sha == "7e4fc0fd36b8e3fd48ee0ede3d1bdb6e4880b281") return Native::pexpire_if_value;
  return Native::none;
}

bool ScriptRunner::may_run_natively(std::size_t run_bytes) const {
  constexpr std::size_t margin = 1u << 20;
  const std::size_t max = memory_bytes_max();
  if (max <= margin) return false;
  const std::size_t state_bytes = lua_ != nullptr ? memory_bytes : state_as_built_bytes_max;
  const std::size_t bound = state_bytes + owed_lua_bytes_ + run_bytes;
  return bound <= (max - margin) / 4;
}

const Reply* ScriptRunner::native_call(const RedisEngine::CommandSpec* spec, std::string_view name,
                                       const std::string& key, const std::string* argument,
                                       std::size_t& run_bytes) {
  if ((spec->flags & command_write) != 0) {
    // redis_call_body's count of what a script hands to write commands; past the budget Lua
    // raises before the call.
    argument_bytes += key.size() + (argument != nullptr ? argument->size() : 0);
    if (argument_bytes > memory_bytes_max()) return nullptr;
  }
  // The strings are assigned in place (a run's arguments are at most native_text_bytes_max); the
  // name only when another call used the buffer last.
  Command& argv = argument != nullptr ? native_argv3_ : native_argv2_;
  if (argv[0] != name) argv[0].assign(name);
  if (argv[1] != key) argv[1].assign(key);  // most often the same lock key again
  if (argument != nullptr) argv[2].assign(*argument);
  // The record is made in place (call_from_script does not touch prefix_).
  RecordedCall& made = prefix_.emplace_back();
  made.reply = call_from_script(argv, spec, made.refusal);
  if (!made.refusal.empty() || made.reply.is_error()) return nullptr;
  if (made.reply.text.size() > native_text_bytes_max) return nullptr;  // recorded, as above
  run_bytes += made.reply.text.size() + lua_bytes_per_string;
  if (!may_run_natively(run_bytes)) return nullptr;
  return &made.reply;
}

const Reply* ScriptRunner::native_del(const std::string& key, std::size_t& run_bytes) {
  // native_call's write count.
  argument_bytes += key.size();
  if (argument_bytes > memory_bytes_max()) return nullptr;
  RecordedCall& made = prefix_.emplace_back();
  // call_from_script's refusal of a write on a replica, and its note of the first write.
  if (engine_.replica() && !current_->from_master) {
    made.refusal = std::string("-") + RedisEngine::replica_readonly_error();
    return nullptr;
  }
  if (!wrote) {
    wrote = true;
    engine_.script_run_.wrote_at = instructions_used;
  }
  // call_engine's, with cmd_del's for the one key.
  static const RedisEngine::CommandSpec* const del = RedisEngine::find_command("DEL");
  std::vector<Propagated>& propagate = current_->propagate;
  const std::size_t from = propagate.size();
  RedisEngine::Call inner = inner_call(del);
  made.reply = Reply::integer_reply(engine_.delete_one(inner, "DEL", key));
  take_produced(propagate, from);
  // native_call's checks of the reply (an integer: no text).
  run_bytes += lua_bytes_per_string;
  if (!may_run_natively(run_bytes)) return nullptr;
  return &made.reply;
}

// Flattened: its steps (GET, DEL, the owed record) are made in place, once a lock script's run.
[[gnu::flatten]] ScriptRunner::NativeRun ScriptRunner::run_native(const Function& function,
                                                                  RedisEngine::Call& call,
                                                                  int64_t key_count, Reply& reply) {
  const Command& argv = call.argv;
  const auto keys = static_cast<std::size_t>(key_count);
  const std::size_t args = argv.size() - 3 - keys;
  const std::size_t args_needed = function.native == Native::pexpire_if_value ? 2 : 1;
  // A missing KEYS[1] (or PEXPIRE's ARGV[2]) is a nil argument, which redis.call refuses; a
  // missing ARGV[1] is compared with the key's value. Both are left to Lua, as uncommon.
  if (keys < 1 || args < args_needed) return NativeRun::not_run;
  if (owed_runs_ != 0 &&
      (owed_.size >= owed_bytes_max || owed_bytes_on_thread >= owed_bytes_on_thread_max)) {
    catch_up();
  }
  std::size_t run_bytes = lua_bytes_per_run;
  std::size_t argument_text = 0;
  for (std::size_t j = 3; j < argv.size(); ++j)
    argument_text += argv[j].size();
  // A big run is made in Lua: its record would be as big, and records are bounded.
  if (argument_text > native_text_bytes_max) return NativeRun::not_run;
  run_bytes += argument_text + (argv.size() - 3) * lua_bytes_per_string;
  if (!may_run_natively(run_bytes)) return NativeRun::not_run;
  static const RedisEngine::CommandSpec* const pexpire = RedisEngine::find_command("PEXPIRE");
  const std::string& key = argv[3];
  const std::string& value = argv[3 + keys];
  prefix_.clear();
  NativeGet current = native_get(key);
  // The run goes on in Lua with the calls made so far, GET's first.
  const auto in_lua = [&] {
    prefix_.insert(prefix_.begin(), RecordedCall{current.reply(), {}});
    return NativeRun::partly;
  };
  // native_call's checks of a call made.
  if (current.type == ReplyType::error || current.text.size() > native_text_bytes_max) {
    return in_lua();
  }
  run_bytes += current.text.size() + lua_bytes_per_string;
  if (!may_run_natively(run_bytes)) return in_lua();
  const bool missing = current.type == ReplyType::nil || current.type == ReplyType::nil_array;
  if (!missing && current.type != ReplyType::bulk) return in_lua();
  const bool ours = !missing && current.text == value;
  // The same bytes in the argument, which outlive the key (the call below may delete it).
  if (ours) current.text = value;
  int64_t result = 0;
  if (function.native == Native::delete_if_value_or_report_missing && missing) {
    result = -1;
  } else if (ours) {
    const bool expire = function.native == Native::pexpire_if_value;
    const Reply* done = expire ? native_call(pexpire, "PEXPIRE", key, &argv[4 + keys], run_bytes)
                               : native_del(key, run_bytes);
    if (done == nullptr || done->type != ReplyType::integer) return in_lua();
    // The integer went through a Lua number.
    result = truncate_number(static_cast<lua_Number>(done->integer));
  }
  // `reply` is run()'s, as made (a nil with no text): an integer reply is its type and value.
  reply.type = ReplyType::integer;
  reply.integer = result;
  append_owed(function, argv, key_count, run_bytes, current);
  prefix_.clear();
  return NativeRun::done;
}

void ScriptRunner::append_owed(const Function& function, const Command& argv, int64_t key_count,
                               std::size_t run_bytes, const NativeGet& first) {
  constexpr std::size_t word = sizeof(uint64_t);
  const auto reply_size = [](const Reply& reply) {
    return 2 * word + (reply.type == ReplyType::bulk ? reply.text.size() : 0);
  };
  // The GET's bytes are the value argument's own when the lock is the caller's (run_native points
  // them there): only the argument's index is written.
  const auto value_index = static_cast<std::size_t>(key_count);
  const bool first_is_value =
      first.type == ReplyType::bulk && first.text.data() == argv[3 + value_index].data();
  std::size_t size = 5 * word + 2 * word +
                     (first.type == ReplyType::bulk && !first_is_value ? first.text.size() : 0);
  for (std::size_t j = 3; j < argv.size(); ++j)
    size += word + argv[j].size();
  for (const RecordedCall& made : prefix_)
    size += reply_size(made.reply);
  char* const start = owed_.extend(size);
  OwedWriter out{start};
  out.word(owed_run);
  // The function is found by its address: functions_ keeps its entries in place until the state
  // goes, and its owed runs with it.
  out.word(reinterpret_cast<uintptr_t>(&function));
  out.word(static_cast<uint64_t>(key_count));
  out.word(argv.size() - 3);
  for (std::size_t j = 3; j < argv.size(); ++j)
    out.text(argv[j]);
  out.word(1 + prefix_.size());
  const auto record = [&out](const Reply& reply) {
    if (reply.type == ReplyType::integer) {
      out.word(owed_integer);
      out.word(static_cast<uint64_t>(reply.integer));
    } else if (reply.type == ReplyType::bulk) {
      out.word(owed_bulk);
      out.text(reply.text);
    } else {
      out.word(owed_nil);
      out.word(0);
    }
  };
  if (first_is_value) {
    out.word(owed_argument);
    out.word(value_index);
  } else if (first.type == ReplyType::bulk) {  // as record() writes a bulk or a nil
    out.word(owed_bulk);
    out.text(first.text);
  } else {
    out.word(owed_nil);
    out.word(0);
  }
  for (const RecordedCall& made : prefix_)
    record(made.reply);
  SIM_ASSERT(out.at == start + size);
  owed_bytes_on_thread += size;
  owed_lua_bytes_ += run_bytes;
  ++owed_runs_;
}

char* ScriptRunner::OwedBuffer::extend(std::size_t more) {
  if (size + more > capacity) {
    // 64 KB at first: a node's owed runs of a 10-second world (about 25 KB) fit without a
    // copy; pages not written to stay out of memory.
    const std::size_t grown = std::max({2 * capacity, size + more, std::size_t{65536}});
    std::unique_ptr<char[]> moved(new char[grown]);
    if (size != 0) std::memcpy(moved.get(), bytes.get(), size);
    bytes = std::move(moved);
    capacity = grown;
  }
  char* const at = bytes.get() + size;
  size += more;
  return at;
}

void ScriptRunner::append_owed_compile(Function& function, const std::string& body) {
  constexpr std::size_t word = sizeof(uint64_t);
  const std::size_t size = 3 * word + body.size();
  OwedWriter out{owed_.extend(size)};
  out.word(owed_compile);
  out.word(reinterpret_cast<uintptr_t>(&function));
  out.text(body);
  owed_bytes_on_thread += size;
  owed_lua_bytes_ += compile_lua_bytes(body.size());
  ++owed_runs_;
}

void ScriptRunner::forget_owed() {
  owed_bytes_on_thread -= std::min(owed_bytes_on_thread, owed_.size);
  owed_ = OwedBuffer{};
  owed_runs_ = 0;
  owed_lua_bytes_ = 0;
}

Reply ScriptRunner::take_recorded(std::string& refusal) {
  const RecordedCall& made = (*answering_)[answered_++];
  refusal = made.refusal;
  return made.reply;
}

// Out of line: run_native, flattened, would otherwise take in the whole Lua path from here.
[[gnu::noinline]] void ScriptRunner::catch_up() {
  if (lua_ == nullptr) open_state();
  if (owed_runs_ == 0) return;
  // A caught-up run touches only the Lua state: the running script's fields are put back after.
  const auto fields = [this] {
    return std::tie(argument_bytes, instructions_used, busy_at_, stop_at_, memory_slack, answering_,
                    answered_);
  };
  const auto kept = std::apply([](auto... value) { return std::make_tuple(value...); }, fields());
  // The owed runs are short (no count hook fires in them); were one to reach it, it must not
  // touch the running script's busy state or cap.
  busy_at_ = UINT64_MAX;
  stop_at_ = UINT64_MAX;
  lua_State* lua = lua_;
  std::vector<std::string_view> strings;
  const char* at = owed_.bytes.get();
  const char* const end = at + owed_.size;
  while (at < end) {
    const uint64_t what = take_word(at);
    Function& function = *reinterpret_cast<Function*>(static_cast<uintptr_t>(take_word(at)));
    if (what == owed_compile) {
      // As create_function does it (a known body is text, not bytecode).
      const std::string_view body = take_text(at);
      const int loaded = luaL_loadbuffer(lua, body.data(), body.size(), "@user_script");
      SIM_ASSERT(loaded == 0);
      lua_rawgeti(lua, LUA_REGISTRYINDEX, environment_ref_);
      lua_setfenv(lua, -2);
      function.ref = luaL_ref(lua, LUA_REGISTRYINDEX);
      continue;
    }
    const int ref = function.ref;
    const auto keys = static_cast<std::size_t>(take_word(at));
    strings.resize(static_cast<std::size_t>(take_word(at)));
    for (std::string_view& text : strings)
      text = take_text(at);
    caught_up_calls_.resize(static_cast<std::size_t>(take_word(at)));
    for (RecordedCall& made : caught_up_calls_) {
      const uint64_t kind = take_word(at);
      if (kind == owed_integer) {
        made.reply = Reply::integer_reply(static_cast<int64_t>(take_word(at)));
      } else if (kind == owed_bulk) {
        made.reply = Reply::bulk(take_text(at));
      } else if (kind == owed_argument) {
        made.reply = Reply::bulk(strings[static_cast<std::size_t>(take_word(at))]);
      } else {
        take_word(at);
        made.reply = Reply{};
      }
      made.refusal.clear();
    }
    // As run() does it, step for step.
    memory_slack = 0;
    argument_bytes = 0;
    answering_ = &caught_up_calls_;
    answered_ = 0;
    const int status = call_in_lua(lua, error_handler_ref_, ref, strings, 0, keys);
    SIM_ASSERT(status == 0 && answered_ == caught_up_calls_.size());
    memory_slack = 1u << 20;
    Reply ignored;
    const bool converted = lua_to_reply(lua, memory_bytes_max(), ignored);
    SIM_ASSERT(converted);
    lua_settop(lua, 0);
  }
  forget_owed();
  fields() = kept;
}

Reply ScriptRunner::call_from_script(const Command& argv, const RedisEngine::CommandSpec* spec,
                                     std::string& refusal) {
  if (spec == nullptr) {
    refusal = "Unknown Redis command called from script";
    return {};
  }
  const auto argc = static_cast<int>(argv.size());
  if ((spec->arity > 0 && argc != spec->arity) || argc < -spec->arity) {
    refusal = "Wrong number of args calling Redis command from script";
    return {};
  }
  if ((spec->flags & command_noscript) != 0) {
    refusal = "This Redis command is not allowed from script";
    return {};
  }
  if ((spec->flags & command_write) != 0 && engine_.replica() && !current_->from_master) {
    refusal = std::string("-") + RedisEngine::replica_readonly_error();
    return {};
  }
  if ((spec->flags & command_write) != 0 && !wrote) {
    wrote = true;
    engine_.script_run_.wrote_at = instructions_used;
  }
  return call_engine(argv, spec);
}

// Apart from call_from_script's refusals so that its one named reply is built in the caller's
// place (g++ moves a named return value when other return statements return other objects).
Reply ScriptRunner::call_engine(const Command& argv, const RedisEngine::CommandSpec* spec) {
  // What the call propagates goes where the script's effects go, after those of its calls
  // before (no copy of each from a buffer of its own).
  std::vector<Propagated>& propagate = current_->propagate;
  const std::size_t from = propagate.size();
  RedisEngine::Call inner{argv, current_->now_ms, current_->wall_now, current_->from_master,
                          true, propagate};
  inner.spec = spec;
  Reply reply = (engine_.*(spec->handler))(inner);
  take_produced(propagate, from);
  return reply;
}

void ScriptRunner::take_produced(std::vector<Propagated>& propagate, std::size_t from) {
  if (replication_flags == 3) return;  // both: as made
  if (replication_flags == 0) {
    propagate.erase(propagate.begin() + static_cast<std::ptrdiff_t>(from), propagate.end());
    return;
  }
  const PropagationTarget target =
      replication_flags == 1 ? PropagationTarget::aof : PropagationTarget::replicas;
  for (std::size_t i = from; i < propagate.size(); ++i)
    propagate[i].target = target;
}

namespace {
const Command no_native_arguments;  // a namespace constant: no guard checked per call
}  // namespace

// A call of `spec` from the running script on one key, with no argv (the native runs pass the
// key themselves), propagating where the script's effects go: call_engine's Call.
RedisEngine::Call ScriptRunner::inner_call(const RedisEngine::CommandSpec* spec) {
  return RedisEngine::Call{no_native_arguments,
                           current_->now_ms,
                           current_->wall_now,
                           current_->from_master,
                           true,
                           current_->propagate,
                           spec};
}

ScriptRunner::NativeGet ScriptRunner::native_get(const std::string& key) {
  // GET is known, of its arity, allowed in scripts and not a write: call_from_script hands it
  // straight to call_engine, whose steps these are (GET reads no argument but its key), and
  // cmd_get's, its reply not written out.
  static const RedisEngine::CommandSpec* const get = RedisEngine::find_command("GET");
  std::vector<Propagated>& propagate = current_->propagate;
  const std::size_t from = propagate.size();
  RedisEngine::Call inner = inner_call(get);
  NativeGet got;
  if (const Value* value = engine_.lookup(inner, key)) {
    if (value->type != ValueType::string) {
      got = NativeGet{ReplyType::error, wrong_type};
    } else {
      got = NativeGet{ReplyType::bulk, value->string};
    }
  }
  take_produced(propagate, from);
  return got;
}

Reply ScriptRunner::NativeGet::reply() const {
  return type == ReplyType::bulk    ? Reply::bulk(text)
         : type == ReplyType::error ? Reply::error(text)
                                    : Reply::nil_reply();
}

Reply ScriptRunner::script_command(RedisEngine::Call& call) {
  const std::string& sub = call.argv[1];
  const auto argc = call.argv.size();
  if (equals_ignore_case(sub, "load")) {
    if (argc != 3) return Reply::error(wrong_arity("script|load"));
    const std::string sha = sha1_hex(call.argv[2]);
    std::string error;
    if (!create_function(sha, call.argv[2], error)) return Reply::error(error);
    return Reply::bulk(sha);
  }
  if (equals_ignore_case(sub, "exists")) {
    if (argc < 3) return Reply::error(wrong_arity("script|exists"));
    ReplyList items;
    for (std::size_t j = 2; j < argc; ++j) {
      items.push_back(Reply::integer_reply(functions_.count(to_lower(call.argv[j])) != 0 ? 1 : 0));
    }
    return Reply::array(std::move(items));
  }
  if (equals_ignore_case(sub, "flush")) {
    if (argc > 3 || (argc == 3 && !equals_ignore_case(call.argv[2], "sync") &&
                     !equals_ignore_case(call.argv[2], "async"))) {
      return Reply::error("ERR SCRIPT FLUSH only support SYNC|ASYNC option");
    }
    flush();
    return Reply::ok();
  }
  if (equals_ignore_case(sub, "kill")) {
    if (argc != 2) return Reply::error(wrong_arity("script|kill"));
    return Reply::error("NOTBUSY No scripts in execution right now.");
  }
  return Reply::error("ERR unknown subcommand '" + sub.substr(0, 128) + "'. Try SCRIPT HELP.");
}

}  // namespace redlock_sim
